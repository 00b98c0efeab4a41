// Prometheus text exposition: counters with escaped labels, histograms, batch grouping.
import assert from "node:assert/strict";
import { Metrics } from "../../api/http/metrics.ts";

Deno.test("metrics: renders counters, gauges and histograms", () => {
  const m = new Metrics();
  m.verification("ok");
  m.verification("ok");
  m.verification('bad"code\\x');
  m.append(true, 3, 1);
  m.append(true, 4, 3);
  m.append(true, 4, 3);
  m.append(false, 2000, 3);
  m.append(true, 5, 4); // closes the batch of head 3 (2 entries)
  m.set("jc_tree_size", 4);
  const text = m.render();
  assert.match(text, /^# TYPE jc_verifications_total counter$/m);
  assert.match(text, /^jc_verifications_total\{code="ok"\} 2$/m);
  assert.match(text, /^jc_verifications_total\{code="bad\\"code\\\\x"\} 1$/m);
  assert.match(text, /^jc_appends_total\{result="created"\} 4$/m);
  assert.match(text, /^jc_appends_total\{result="duplicate"\} 1$/m);
  assert.match(text, /^jc_append_ack_seconds_count 5$/m);
  assert.match(text, /^jc_append_ack_seconds_bucket\{le="0.005"\} 4$/m);
  assert.match(text, /^jc_append_ack_seconds_bucket\{le="\+Inf"\} 5$/m);
  assert.match(text, /^jc_sequencer_batch_size_count 2$/m);
  assert.match(text, /^jc_sequencer_batch_size_bucket\{le="1"\} 1$/m);
  assert.match(text, /^jc_sequencer_batch_size_bucket\{le="2"\} 2$/m);
  assert.match(text, /^jc_tree_size 4$/m);
  assert.match(text, /^jc_rate_limited_total 0$/m);
  // every sample line parses as NAME{labels} VALUE
  for (const line of text.trim().split("\n")) {
    if (line.startsWith("#")) continue;
    assert.match(line, /^[a-z_]+(\{.*\})? [0-9.e+-]+|\+Inf$/, line);
  }
});

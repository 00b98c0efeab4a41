#!/usr/bin/env bash
# Device check of the bundled meter agent against a real NVIDIA GPU (H200) through real NVML.
# Needs: the bundle built here (`deno task agent:build` → meter-agent/dist/, koffi beside it), a
# Node >= 20 binary (default .devnode/node), the NVIDIA driver (libnvidia-ml.so.1), python3 with
# torch for the load. Writes every output to "$OUT/" (default ./device-out). Finishes in < 3 min.
#   idle:  --probe (every rung), --once --rungs nvml --interval 5
#   load:  torch bf16 matmuls in the background; after 8 s warm-up the same two again (interval 10)
#   after: --once --rungs nvml --interval 5 while the board settles
set -u
cd "$(dirname "$0")/.."
NODE="${NODE:-.devnode/node}"
BUNDLE=meter-agent/dist/meter-agent.mjs
OUT="${OUT:-./device-out}"
mkdir -p "$OUT"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/device-check.log"; }
[ -x "$NODE" ] || NODE="$(command -v node || true)"
[ -n "$NODE" ] || { log "FAIL: no node binary (.devnode/node)"; exit 1; }
[ -f "$BUNDLE" ] || { log "FAIL: $BUNDLE missing: run deno task agent:build"; exit 1; }
"$NODE" --version > "$OUT/node-version.txt" 2>&1
uname -a > "$OUT/uname.txt"
nvidia-smi --query-gpu=name,driver_version,power.draw,power.limit,enforced.power.limit --format=csv \
  > "$OUT/nvidia-smi-idle.csv" 2>&1 || true
ls -la /sys/class/powercap/ > "$OUT/powercap-ls.txt" 2>&1 || true

run() { # name timeout args...
  local name="$1" t="$2"; shift 2
  log "run $name: $*"
  local t0=$(date +%s.%N)
  timeout "$t" "$NODE" "$BUNDLE" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
  local rc=$?
  log "  $name rc=$rc in $(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo '?') s"
}

run probe-idle 30 --probe
run once-idle 30 --once --rungs nvml --interval 5

log "start GPU load (torch bf16 matmul, 75 s)"
READY="$OUT/load.ready" python3 - > "$OUT/load.log" 2>&1 <<'PY' &
import os, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
(a @ b).sum().item()
open(os.environ["READY"], "w").write("ready")
t0, n = time.time(), 0
while time.time() - t0 < 75:
    c = a @ b
    n += 1
    if n % 50 == 0:
        torch.cuda.synchronize()
torch.cuda.synchronize()
print(f"matmuls={n} seconds={time.time() - t0:.1f} tflops={n * 2 * 8192**3 / (time.time() - t0) / 1e12:.1f}")
PY
LOAD=$!
for _ in $(seq 1 90); do [ -f "$OUT/load.ready" ] && break; sleep 0.5; done
log "load ready: $([ -f "$OUT/load.ready" ] && echo yes || echo NO)"
sleep 4
nvidia-smi --query-gpu=name,power.draw,power.limit --format=csv > "$OUT/nvidia-smi-load.csv" 2>&1 || true
run probe-load 30 --probe
run once-load 40 --once --rungs nvml --interval 10
run once-load-all 40 --once --interval 5
wait "$LOAD"
log "load finished: $(cat "$OUT/load.log" | tail -1)"
run once-after 30 --once --rungs nvml --interval 5
nvidia-smi --query-gpu=name,power.draw --format=csv > "$OUT/nvidia-smi-after.csv" 2>&1 || true
log "done"

// tlogcheck: an independent check of a C2SP tiled log's SHA-256 view with Go's
// golang.org/x/mod/sumdb/note and sumdb/tlog (Debian golang-golang-x-mod-dev, GOPATH mode, no
// network but the log's own URL). Given the view's URL prefix and the log's vkey it:
//   - opens <prefix>/checkpoint with note.Open (the log's Ed25519 signature, type 0x01),
//   - reads every hash it needs through tlog.TileHashReader, which checks each tile against the
//     checkpoint's root (C2SP paths: x/mod's "tile/8/L/N" is fetched as "tile/L/N", data tiles
//     as "tile/entries/N"),
//   - checks the tree hash, then the records it is asked for: each read from its entry bundle,
//     hashed with tlog.RecordHash, proven with tlog.ProveRecord and checked with tlog.CheckRecord,
//   - checks consistency (tlog.ProveTree / tlog.CheckTree) from every older checkpoint given.
//
// Usage: tlogcheck -url PREFIX -vkey VKEY [-records all|N] [-old FILE]...
//
//	tlogcheck -newtiles OLD,NEW   (prints x/mod's tlog.NewTiles in C2SP paths)
//
// Prints one JSON line; exit 0 when every check passes, 1 otherwise.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

var client = &http.Client{Timeout: 30 * time.Second}

func c2spPath(t tlog.Tile) string {
	p := t.Path() // tile/8/L/N[.p/W] or tile/8/data/N[.p/W]
	p = strings.Replace(p, "tile/8/", "tile/", 1)
	return strings.Replace(p, "tile/data/", "tile/entries/", 1)
}

func get(url string, max int64) ([]byte, error) {
	res, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, res.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("GET %s: body over %d bytes", url, max)
	}
	return b, nil
}

// Tiles are cached as fetched (raw bytes): TileHashReader checks them again on every read.
type tileReader struct {
	prefix string
	reads  int
	cache  map[string][]byte
}

func (r *tileReader) Height() int { return 8 }

func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := c2spPath(t)
		if b, ok := r.cache[path]; ok {
			out[i] = b
			continue
		}
		b, err := get(r.prefix+"/"+path, 8192)
		if err != nil {
			return nil, err
		}
		r.reads++
		r.cache[path] = b
		out[i] = b
	}
	return out, nil
}

func (r *tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

type checkpoint struct {
	origin string
	tree   tlog.Tree
}

// C2SP tlog-checkpoint: origin, size, base64 root (x/mod's tlog.ParseTree wants its own origin).
func parseCheckpoint(text string) (checkpoint, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 3 {
		return checkpoint{}, fmt.Errorf("checkpoint has %d lines", len(lines))
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return checkpoint{}, fmt.Errorf("bad size %q", lines[1])
	}
	root, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return checkpoint{}, fmt.Errorf("bad root %q", lines[2])
	}
	var h tlog.Hash
	copy(h[:], root)
	return checkpoint{origin: lines[0], tree: tlog.Tree{N: n, Hash: h}}, nil
}

func open(msg []byte, verifier note.Verifier) (checkpoint, error) {
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		return checkpoint{}, fmt.Errorf("note.Open: %v", err)
	}
	c, err := parseCheckpoint(n.Text)
	if err != nil {
		return c, err
	}
	if c.origin != verifier.Name() {
		return c, fmt.Errorf("origin %q is not the key name %q", c.origin, verifier.Name())
	}
	return c, nil
}

func bundle(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			return nil, fmt.Errorf("bundle: truncated length")
		}
		n := int(b[0])<<8 | int(b[1])
		if len(b) < 2+n {
			return nil, fmt.Errorf("bundle: truncated entry")
		}
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out, nil
}

func fail(result map[string]interface{}, err error) {
	result["ok"] = false
	result["error"] = err.Error()
	json.NewEncoder(os.Stdout).Encode(result)
	os.Exit(1)
}

func main() {
	url := flag.String("url", "", "the SHA-256 view's URL prefix (…/log/sha256)")
	vkey := flag.String("vkey", "", "the view's vkey")
	records := flag.String("records", "all", "records to check: all, or a count spread over the log")
	newTiles := flag.String("newtiles", "", "OLD,NEW: print x/mod's tlog.NewTiles(8, OLD, NEW)")
	var olds multi
	flag.Var(&olds, "old", "an older checkpoint note file to check consistency from (repeatable)")
	flag.Parse()
	result := map[string]interface{}{"ok": true}

	if *newTiles != "" {
		parts := strings.Split(*newTiles, ",")
		a, _ := strconv.ParseInt(parts[0], 10, 64)
		b, _ := strconv.ParseInt(parts[1], 10, 64)
		paths := []string{}
		for _, t := range tlog.NewTiles(8, a, b) {
			paths = append(paths, c2spPath(t))
		}
		result["tiles"] = paths
		json.NewEncoder(os.Stdout).Encode(result)
		return
	}

	verifier, err := note.NewVerifier(*vkey)
	if err != nil {
		fail(result, fmt.Errorf("note.NewVerifier: %v", err))
	}
	prefix := strings.TrimSuffix(*url, "/")
	msg, err := get(prefix+"/checkpoint", 1<<16)
	if err != nil {
		fail(result, err)
	}
	cp, err := open(msg, verifier)
	if err != nil {
		fail(result, err)
	}
	tree := cp.tree
	result["size"] = tree.N
	tr := &tileReader{prefix: prefix, cache: map[string][]byte{}}
	hr := tlog.TileHashReader(tree, tr)
	if tree.N > 0 {
		th, err := tlog.TreeHash(tree.N, hr)
		if err != nil {
			fail(result, fmt.Errorf("tlog.TreeHash: %v", err))
		}
		if th != tree.Hash {
			fail(result, fmt.Errorf("tree hash mismatch"))
		}
	}

	// Which records: all, or N spread evenly (always the first and the last).
	var want []int64
	if *records == "all" {
		for i := int64(0); i < tree.N; i++ {
			want = append(want, i)
		}
	} else if k, err := strconv.ParseInt(*records, 10, 64); err == nil && k > 0 && tree.N > 0 {
		for j := int64(0); j < k; j++ {
			want = append(want, j*(tree.N-1)/max64(k-1, 1))
		}
	}
	bundles := map[int64][][]byte{}
	checked := 0
	for _, i := range want {
		n := i / 256
		entries, ok := bundles[n]
		if !ok {
			w := int64(256)
			if (n+1)*256 > tree.N {
				w = tree.N - n*256
			}
			t := tlog.Tile{H: 8, L: -1, N: n, W: int(w)}
			b, err := get(prefix+"/"+c2spPath(t), 256*65537)
			if err != nil {
				fail(result, err)
			}
			entries, err = bundle(b)
			if err != nil {
				fail(result, err)
			}
			if int64(len(entries)) != w {
				fail(result, fmt.Errorf("bundle %d has %d entries, want %d", n, len(entries), w))
			}
			bundles = map[int64][][]byte{n: entries}
		}
		rh := tlog.RecordHash(entries[i%256])
		hs, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, i)})
		if err != nil {
			fail(result, fmt.Errorf("record %d: %v", i, err))
		}
		if !bytes.Equal(hs[0][:], rh[:]) {
			fail(result, fmt.Errorf("record %d: the bundle's entry does not hash to its leaf", i))
		}
		p, err := tlog.ProveRecord(tree.N, i, hr)
		if err != nil {
			fail(result, fmt.Errorf("tlog.ProveRecord %d: %v", i, err))
		}
		if err := tlog.CheckRecord(p, tree.N, tree.Hash, i, rh); err != nil {
			fail(result, fmt.Errorf("tlog.CheckRecord %d: %v", i, err))
		}
		checked++
	}
	result["records"] = checked

	consistent := 0
	for _, f := range olds {
		b, err := os.ReadFile(f)
		if err != nil {
			fail(result, err)
		}
		old, err := open(b, verifier)
		if err != nil {
			fail(result, fmt.Errorf("%s: %v", f, err))
		}
		if old.tree.N > tree.N {
			fail(result, fmt.Errorf("%s: size %d is beyond the current %d", f, old.tree.N, tree.N))
		}
		if old.tree.N == 0 {
			consistent++
			continue
		}
		p, err := tlog.ProveTree(tree.N, old.tree.N, hr)
		if err != nil {
			fail(result, fmt.Errorf("tlog.ProveTree %d→%d: %v", old.tree.N, tree.N, err))
		}
		if err := tlog.CheckTree(p, tree.N, tree.Hash, old.tree.N, old.tree.Hash); err != nil {
			fail(result, fmt.Errorf("tlog.CheckTree %d→%d: %v", old.tree.N, tree.N, err))
		}
		consistent++
	}
	result["consistent"] = consistent
	result["tile_reads"] = tr.reads
	json.NewEncoder(os.Stdout).Encode(result)
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

package main

// bench/cores.ts's modes: paged LISTs closed-loop (pages), and the update requests of load's
// `verb` (PUT, merge patch, server-side apply of one ConfigMap per worker).

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// updateRequest: one update of ConfigMap `name` at `path`; every one changes data.seq, so each is
// a real write (an update that changes nothing is answered without one by both servers).
func updateRequest(ctx context.Context, cfg Config, path, name string, seq int) *http.Request {
	ns := cfg.Namespace
	s := strconv.Itoa(seq)
	switch cfg.Verb {
	case "put":
		// No resourceVersion: an unconditional update, which ConfigMaps allow (no conflicts between rounds of a worker).
		body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"data":{"v":"` + filler1K + `","seq":"` + s + `"}}`)
		return newRequest(ctx, "PUT", cfg.Server, path, body)
	case "merge":
		req := newRequest(ctx, "PATCH", cfg.Server, path, []byte(`{"data":{"seq":"`+s+`"}}`))
		req.Header.Set("Content-Type", "application/merge-patch+json")
		return req
	case "apply":
		body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"data":{"seq":"` + s + `"}}`)
		req := newRequest(ctx, "PATCH", cfg.Server, path+"?fieldManager=bench&force=true", body)
		req.Header.Set("Content-Type", "application/apply-patch+yaml")
		return req
	}
	panic("verb " + cfg.Verb)
}

// PagesResult: load's result with pages for requests (ok, okPerSec and donePerSec: pages answered
// 200 inside the window; latencyMs: each such page's), and the lists followed to their last page.
type PagesResult struct {
	LoadResult
	Lists int `json:"lists"`
}

// pages: `conns` clients, each on its own HTTP/1.1 connection, list `path` in pages of `limit`
// following continue, over and over, for warmup+duration; pages answered 200 inside the window.
func pages(cfg Config, base *tls.Config) (any, error) {
	ctx := context.Background()
	start := time.Now()
	winStart := start.Add(time.Duration(cfg.WarmupMs) * time.Millisecond)
	end := winStart.Add(time.Duration(cfg.DurationMs) * time.Millisecond)
	proto := strings.HasPrefix(cfg.Accept, "application/vnd.kubernetes.protobuf")
	var mu sync.Mutex
	var lat []float64
	statuses := map[string]int{}
	var nPages, nLists, errs atomic.Int64
	var bad samples
	var wg sync.WaitGroup
	for w := 0; w < cfg.Conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt := clientRT{h1Client(base, 1, true)}
			var mine []float64
			local := map[string]int{}
			cont := ""
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				q := url.Values{}
				q.Set("limit", strconv.Itoa(cfg.Limit))
				if cont != "" {
					q.Set("continue", cont)
				}
				req := newRequest(ctx, "GET", cfg.Server, cfg.Path+"?"+q.Encode(), nil)
				if cfg.Accept != "" {
					req.Header.Set("Accept", cfg.Accept)
				}
				st, b, err := do(rt, req)
				t1 := time.Now()
				if err != nil {
					errs.Add(1)
					bad.add(err.Error())
					cont = ""
					time.Sleep(10 * time.Millisecond)
					continue
				}
				if st != 200 {
					bad.add(fmt.Sprintf("%d %.300s", st, b))
					cont = ""
				} else {
					if proto {
						cont, err = protoContinue(b)
					} else {
						cont, err = continueOf(b)
					}
					if err != nil {
						bad.add(err.Error())
						cont = ""
					}
					if cont == "" {
						nLists.Add(1)
					}
				}
				// Pages answered inside the window, whenever asked.
				if !t1.Before(winStart) && !t1.After(end) {
					local[strconv.Itoa(st)]++
					if st == 200 {
						mine = append(mine, ms(t1.Sub(t0)))
						nPages.Add(1)
					}
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			for k, v := range local {
				statuses[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	window := end.Sub(winStart)
	perSec := round2(float64(nPages.Load()) / window.Seconds())
	return PagesResult{
		LoadResult: LoadResult{Proto: "h1", Conns: cfg.Conns, WindowMs: ms(window), OK: int(nPages.Load()), OKPerSec: perSec, DonePerSec: perSec, Statuses: statuses, Errors: int(errs.Load()), ErrorSamples: bad.list, LatencyMs: summarize(lat)},
		Lists:      int(nLists.Load()),
	}, nil
}

// protoContinue: metadata.continue of a list in Kubernetes' Protobuf envelope: "k8s\0", then
// runtime.Unknown whose field 2 (raw) is the list, whose field 1 is ListMeta, whose field 3 is
// continue.
func protoContinue(b []byte) (string, error) {
	if !bytes.HasPrefix(b, []byte("k8s\x00")) {
		return "", fmt.Errorf("not a Kubernetes protobuf answer: %.40q", b)
	}
	raw, err := protoField(b[4:], 2)
	if err != nil || raw == nil {
		return "", fmt.Errorf("protobuf envelope without raw: %v", err)
	}
	meta, err := protoField(raw, 1)
	if err != nil || meta == nil {
		return "", err
	}
	c, err := protoField(meta, 3)
	return string(c), err
}

// protoField: the bytes of the first length-delimited field `num` of a message (nil when absent).
func protoField(b []byte, num uint64) ([]byte, error) {
	for len(b) > 0 {
		key, n := uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad protobuf key")
		}
		b = b[n:]
		switch key & 7 {
		case 0:
			_, n = uvarint(b)
			if n <= 0 {
				return nil, errors.New("bad protobuf varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return nil, errors.New("short protobuf fixed64")
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return nil, errors.New("short protobuf fixed32")
			}
			b = b[4:]
		case 2:
			l, n := uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, errors.New("bad protobuf length")
			}
			v := b[n : n+int(l)]
			if key>>3 == num {
				return v, nil
			}
			b = b[n+int(l):]
		default:
			return nil, fmt.Errorf("protobuf wire type %d", key&7)
		}
	}
	return nil, nil
}

func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 10; i++ {
		x |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

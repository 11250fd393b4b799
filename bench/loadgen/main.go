// vskube-loadgen: the one load generator of bench/vs-kube.ts. The same binary drives this project's
// API server, real kube-apiserver + etcd and the bare Node HTTPS echo, with the same payloads and the
// same TLS settings, so that neither side gains from the client: Go's net/http for HTTP/1.1 and
// golang.org/x/net/http2 for HTTP/2 on one connection, TLS client certificates (admin) from files.
//
//	vskube-loadgen '<json config>'     (one JSON object; "mode" selects what to do)
//
// It prints one JSON object (the result) on stdout; progress and errors go to stderr. Modes:
//
//	prep     create namespaces (201 or 409) and `probeCount` probe ConfigMaps in `namespace`
//	load     closed-loop 1 KiB ConfigMap creates (or `body` to `createPath`) for warmup+duration over h1 (`conns` connections)
//	         or h2 (`conns` streams on ONE connection), with an optional sequential GET probe on its
//	         own HTTP/1.1 connection during the window
//	fill     create ConfigMaps cm-<from>…cm-<to-1> in `namespace` (h1, `conns` connections)
//	list     LIST `path` `runs` times, unpaged (limit 0) or paged with `limit` following continue
//	watch    `watchers` watches of one namespace (h2, `streamsPerConn` streams per connection) while
//	         a paced writer creates `rate` ConfigMaps/s in it; delivery = receive − writer's ack
//	overload bench/overload.ts: N connections of creates by a non-exempt user, admin and health
//	         probes beside them (overload.go)
//	pages    bench/cores.ts: `conns` clients (HTTP/1.1, a connection each) LIST `path` closed-loop in
//	         pages of `limit` following continue, as JSON, Table or Protobuf (`accept`), for
//	         warmup+duration; pages/s (pages.go)
//	readyz   poll /readyz (fresh TLS connection each time) until 200; prints the CLOCK_MONOTONIC
//	         time of that answer, the clock Node's process.hrtime reads, so the bench can subtract
//	         its own spawn time
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/sys/unix"
)

// Config is the union of every mode's parameters (unused ones stay zero).
type Config struct {
	Mode   string `json:"mode"`
	Server string `json:"server"` // https://127.0.0.1:PORT
	CA     string `json:"ca"`     // PEM file paths
	Cert   string `json:"cert"`
	Key    string `json:"key"`

	Namespace  string   `json:"namespace"`
	Namespaces []string `json:"namespaces"`
	Proto      string   `json:"proto"` // h1 | h2
	Conns      int      `json:"conns"`
	WarmupMs   int      `json:"warmupMs"`
	DurationMs int      `json:"durationMs"`
	Prefix     string   `json:"prefix"`
	ProbeNS    string   `json:"probeNamespace"`
	ProbeCount int      `json:"probeCount"`
	// load mode: GET probe-(i % getCount) in the namespace instead of creating (0: create).
	GetCount int `json:"getCount"`
	// load mode: POST `body` (a JSON template, $NAME and $NAMESPACE replaced) to `createPath`
	// instead of 1 KiB ConfigMaps to the namespace's configmaps (bench/crd.ts: custom resources).
	CreatePath string `json:"createPath"`
	Body       string `json:"body"`
	// load mode: "put" (whole object), "merge" (merge patch) or "apply" (server-side apply) of
	// probe-(worker % objects) in the namespace instead of creating ("" : create); `probeConns`
	// sequential GET readers beside the load instead of one (bench/cores.ts: 4 readers).
	Verb       string `json:"verb"`
	Objects    int    `json:"objects"`
	ProbeConns int    `json:"probeConns"`
	// pages mode: the Accept header (JSON when empty).
	Accept string `json:"accept"`

	From int `json:"from"`
	To   int `json:"to"`

	Path  string `json:"path"`
	Limit int    `json:"limit"`
	Runs  int    `json:"runs"`

	Watchers       int     `json:"watchers"`
	StreamsPerConn int     `json:"streamsPerConn"`
	Rate           float64 `json:"rate"`
	DrainMs        int     `json:"drainMs"`
	WriterConns    int     `json:"writerConns"`

	IntervalMs int `json:"intervalMs"`
	TimeoutMs  int `json:"timeoutMs"`

	// overload mode (overload.go): the load's bearer token, the admin/health probe period.
	Token           string `json:"token"`
	ProbeIntervalMs int    `json:"probeIntervalMs"`
}

var startedAt = time.Now()

func main() {
	if len(os.Args) != 2 {
		fatalf("usage: vskube-loadgen '<json config>'")
	}
	var cfg Config
	if err := json.Unmarshal([]byte(os.Args[1]), &cfg); err != nil {
		fatalf("bad config: %v", err)
	}
	tlsCfg, err := loadTLS(cfg)
	if err != nil {
		fatalf("tls: %v", err)
	}
	var out any
	switch cfg.Mode {
	case "prep":
		out, err = prep(cfg, tlsCfg)
	case "load":
		out, err = load(cfg, tlsCfg)
	case "fill":
		out, err = fill(cfg, tlsCfg)
	case "list":
		out, err = list(cfg, tlsCfg)
	case "watch":
		out, err = watch(cfg, tlsCfg)
	case "readyz":
		out, err = readyz(cfg, tlsCfg)
	case "overload":
		out, err = overload(cfg, tlsCfg)
	case "pages":
		out, err = pages(cfg, tlsCfg)
	default:
		err = fmt.Errorf("unknown mode %q", cfg.Mode)
	}
	if err != nil {
		fatalf("%s: %v", cfg.Mode, err)
	}
	// The generator's own CPU (user + system) and wall time: it shares the machine with the server,
	// so a result reads with how much of the 2 cores the client took.
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	raw, err := json.Marshal(out)
	if err != nil {
		fatalf("encoding result: %v", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		fatalf("encoding result: %v", err)
	}
	obj["client"] = map[string]float64{
		"cpuSeconds":  round2(float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9),
		"wallSeconds": round2(time.Since(startedAt).Seconds()),
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(obj); err != nil {
		fatalf("writing result: %v", err)
	}
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "vskube-loadgen: "+format+"\n", a...)
	os.Exit(1)
}

// ---------------------------------------------------------------------------------------------
// TLS and clients: one TLS setup for every server (TLS ≥ 1.2, Go's defaults otherwise, admin cert).

func loadTLS(cfg Config) (*tls.Config, error) {
	caPem, err := os.ReadFile(cfg.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPem) {
		return nil, fmt.Errorf("no certificate in %s", cfg.CA)
	}
	pair, err := tls.LoadX509KeyPair(cfg.Cert, cfg.Key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

func withALPN(base *tls.Config, proto string) *tls.Config {
	c := base.Clone()
	c.NextProtos = []string{proto}
	return c
}

// h1Client: HTTP/1.1 only (no h2 upgrade), at most `conns` keep-alive connections.
func h1Client(base *tls.Config, conns int, keepAlive bool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:     withALPN(base, "http/1.1"),
		MaxConnsPerHost:     conns,
		MaxIdleConnsPerHost: conns,
		MaxIdleConns:        conns,
		IdleConnTimeout:     90 * time.Second,
		DisableKeepAlives:   !keepAlive,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{}, // no h2
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}
	return &http.Client{Transport: tr}
}

// h2Conn dials ONE TLS connection negotiating h2 and wraps it in an x/net/http2 ClientConn: every
// request given to it is a stream on that connection (over the server's stream limit, it waits).
func h2Conn(base *tls.Config, server string) (*http2.ClientConn, error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", u.Host, withALPN(base, "h2"))
	if err != nil {
		return nil, err
	}
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		conn.Close()
		return nil, fmt.Errorf("server did not negotiate h2 (got %q)", p)
	}
	t := &http2.Transport{TLSClientConfig: withALPN(base, "h2"), DisableCompression: true, ReadIdleTimeout: 0}
	return t.NewClientConn(conn)
}

type roundTripper interface {
	RoundTrip(*http.Request) (*http.Response, error)
}

// ---------------------------------------------------------------------------------------------
// payloads: byte-for-byte what bench/util.ts configMapBody builds

var filler1K = strings.Repeat("x", 1024)

func configMapBody(name, ns string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"data":{"v":"` + filler1K + `"}}`)
}

func newRequest(ctx context.Context, method, server, path string, body []byte) *http.Request {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, server+path, r)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(body))
	}
	return req
}

// do sends one request and reads the whole answer.
func do(rt roundTripper, req *http.Request) (int, []byte, error) {
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

type clientRT struct{ c *http.Client }

func (c clientRT) RoundTrip(r *http.Request) (*http.Response, error) {
	return c.c.Transport.RoundTrip(r)
}

var rvKey = []byte(`"resourceVersion":"`)

// firstRV: the first "resourceVersion" string of a JSON object (metadata's, for a ConfigMap or a
// watch event of one: its managedFields carry none).
func firstRV(b []byte) string {
	i := bytes.Index(b, rvKey)
	if i < 0 {
		return ""
	}
	rest := b[i+len(rvKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// ---------------------------------------------------------------------------------------------
// latency summaries (nearest rank, as bench/util.ts summarize)

type Summary struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func summarize(s []float64) Summary {
	if len(s) == 0 {
		return Summary{}
	}
	sort.Float64s(s)
	pct := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		if i < 0 {
			i = 0
		}
		if i >= len(s) {
			i = len(s) - 1
		}
		return round2(s[i])
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return Summary{N: len(s), P50: pct(50), P90: pct(90), P99: pct(99), Max: round2(s[len(s)-1]), Mean: round2(sum / float64(len(s)))}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// samples keeps the first few distinct error texts.
type samples struct {
	mu   sync.Mutex
	list []string
}

func (s *samples) add(t string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(t) > 300 {
		t = t[:300]
	}
	if len(s.list) < 5 {
		for _, x := range s.list {
			if x == t {
				return
			}
		}
		s.list = append(s.list, t)
	}
}

// ---------------------------------------------------------------------------------------------
// prep

func prep(cfg Config, base *tls.Config) (any, error) {
	c := h1Client(base, 8, true)
	ctx := context.Background()
	for _, ns := range cfg.Namespaces {
		body := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`)
		st, b, err := do(clientRT{c}, newRequest(ctx, "POST", cfg.Server, "/api/v1/namespaces", body))
		if err != nil {
			return nil, err
		}
		if st != 201 && st != 409 {
			return nil, fmt.Errorf("creating namespace %s: %d %s", ns, st, b)
		}
	}
	for i := 0; i < cfg.ProbeCount; i++ {
		name := fmt.Sprintf("probe-%d", i)
		st, b, err := do(clientRT{c}, newRequest(ctx, "POST", cfg.Server, "/api/v1/namespaces/"+cfg.Namespace+"/configmaps", configMapBody(name, cfg.Namespace)))
		if err != nil {
			return nil, err
		}
		if st != 201 && st != 409 {
			return nil, fmt.Errorf("creating probe object %s: %d %s", name, st, b)
		}
	}
	return map[string]any{"ok": true}, nil
}

// ---------------------------------------------------------------------------------------------
// load: closed-loop creates, GET probe alongside

type LoadResult struct {
	Proto        string         `json:"proto"`
	Conns        int            `json:"conns"`
	WindowMs     float64        `json:"windowMs"`
	OK           int            `json:"ok"`
	OKPerSec     float64        `json:"okPerSec"`
	Statuses     map[string]int `json:"statuses"`
	Errors       int            `json:"errors"`
	ErrorSamples []string       `json:"errorSamples"`
	BadSamples   []string       `json:"badSamples"`
	// Latency of the creates sent inside the window (each one, however late it completed).
	LatencyMs Summary `json:"latencyMs"`
	// Longest time inside the window with no create completing: a stall detector.
	MaxGapMs float64 `json:"maxGapMs"`
	Sent     int64   `json:"sent"`
	// Answers with the wanted status completed inside the window, whenever sent, per second
	// (okPerSec counts only those sent and completed inside it: short windows undercount).
	DonePerSec float64 `json:"donePerSec"`
	// Sequential GETs of the probe objects on their own HTTP/1.1 connection during the window.
	Probe *ProbeResult `json:"probe,omitempty"`
}

type ProbeResult struct {
	LatencyMs Summary        `json:"latencyMs"`
	Statuses  map[string]int `json:"statuses"`
	Errors    int            `json:"errors"`
}

func load(cfg Config, base *tls.Config) (any, error) {
	var rt roundTripper
	switch cfg.Proto {
	case "h1":
		rt = clientRT{h1Client(base, cfg.Conns, true)}
	case "h2":
		cc, err := h2Conn(base, cfg.Server)
		if err != nil {
			return nil, err
		}
		defer cc.Close()
		rt = cc
	default:
		return nil, fmt.Errorf("proto %q", cfg.Proto)
	}
	ns := cfg.Namespace
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	body := func(name string) []byte { return configMapBody(name, ns) }
	if cfg.CreatePath != "" {
		path = cfg.CreatePath
		tmpl := strings.ReplaceAll(cfg.Body, "$NAMESPACE", ns)
		body = func(name string) []byte { return []byte(strings.ReplaceAll(tmpl, "$NAME", name)) }
	}
	ctx := context.Background()
	start := time.Now()
	winStart := start.Add(time.Duration(cfg.WarmupMs) * time.Millisecond)
	end := winStart.Add(time.Duration(cfg.DurationMs) * time.Millisecond)

	type rec struct {
		sent, done time.Time
		status     int
	}
	var mu sync.Mutex
	var recs []rec
	var sent atomic.Int64
	var errs atomic.Int64
	var errSamples, badSamples samples
	var wg sync.WaitGroup
	for w := 0; w < cfg.Conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			local := make([]rec, 0, 1024)
			for seq := 0; ; seq++ {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				sent.Add(1)
				var st int
				var b []byte
				var err error
				want := 201
				if cfg.Verb != "" {
					want = 200
					st, b, err = do(rt, updateRequest(ctx, cfg, fmt.Sprintf("%s/probe-%d", path, w%cfg.Objects), fmt.Sprintf("probe-%d", w%cfg.Objects), seq))
				} else if cfg.GetCount > 0 {
					// Reads instead of creates: the request path without the write (profiling).
					want = 200
					st, b, err = do(rt, newRequest(ctx, "GET", cfg.Server, fmt.Sprintf("%s/probe-%d", path, (w+seq*cfg.Conns)%cfg.GetCount), nil))
				} else {
					name := fmt.Sprintf("%s-%d-%d", cfg.Prefix, w, seq)
					st, b, err = do(rt, newRequest(ctx, "POST", cfg.Server, path, body(name)))
				}
				t1 := time.Now()
				if err != nil {
					errs.Add(1)
					errSamples.add(err.Error())
					time.Sleep(10 * time.Millisecond)
					continue
				}
				if st != want {
					badSamples.add(fmt.Sprintf("%d %s", st, b))
				}
				if !t1.Before(winStart) {
					local = append(local, rec{t0, t1, st})
				}
			}
			mu.Lock()
			recs = append(recs, local...)
			mu.Unlock()
		}(w)
	}

	var probe *ProbeResult
	var probeDone chan struct{}
	if cfg.ProbeCount > 0 {
		probeDone = make(chan struct{})
		readers := cfg.ProbeConns
		if readers <= 0 {
			readers = 1
		}
		var pmu sync.Mutex
		var lat []float64
		statuses := map[string]int{}
		perr := 0
		var pwg sync.WaitGroup
		for r := 0; r < readers; r++ {
			pwg.Add(1)
			go func(r int) {
				defer pwg.Done()
				pc := clientRT{h1Client(base, 1, true)}
				// One untimed GET opens the connection before the window.
				do(pc, newRequest(ctx, "GET", cfg.Server, "/api/v1/namespaces/"+cfg.ProbeNS+"/configmaps/probe-0", nil))
				time.Sleep(time.Until(winStart))
				var mine []float64
				for i := r; time.Now().Before(end); i += readers {
					p := fmt.Sprintf("/api/v1/namespaces/%s/configmaps/probe-%d", cfg.ProbeNS, i%cfg.ProbeCount)
					t0 := time.Now()
					st, _, err := do(pc, newRequest(ctx, "GET", cfg.Server, p, nil))
					pmu.Lock()
					if err != nil {
						perr++
					} else {
						statuses[strconv.Itoa(st)]++
					}
					pmu.Unlock()
					if err == nil {
						mine = append(mine, ms(time.Since(t0)))
					}
				}
				pmu.Lock()
				lat = append(lat, mine...)
				pmu.Unlock()
			}(r)
		}
		go func() {
			pwg.Wait()
			probe = &ProbeResult{LatencyMs: summarize(lat), Statuses: statuses, Errors: perr}
			close(probeDone)
		}()
	}
	wg.Wait()
	if probeDone != nil {
		<-probeDone
	}

	window := end.Sub(winStart)
	res := LoadResult{Proto: cfg.Proto, Conns: cfg.Conns, WindowMs: ms(window), Statuses: map[string]int{}, Sent: sent.Load(), Errors: int(errs.Load()), Probe: probe}
	var lat []float64
	var dones []time.Time
	want := 201
	if cfg.Verb != "" || cfg.GetCount > 0 {
		want = 200
	}
	done := 0
	for _, r := range recs {
		if r.status == want && !r.done.After(end) {
			done++
		}
		if r.sent.Before(winStart) {
			continue // completed inside the window, sent before it: only in donePerSec
		}
		res.Statuses[strconv.Itoa(r.status)]++
		lat = append(lat, ms(r.done.Sub(r.sent)))
		if r.status == want && !r.done.After(end) {
			res.OK++
			dones = append(dones, r.done)
		}
	}
	sort.Slice(dones, func(i, j int) bool { return dones[i].Before(dones[j]) })
	prev := winStart
	for _, d := range dones {
		if g := d.Sub(prev); ms(g) > res.MaxGapMs {
			res.MaxGapMs = ms(g)
		}
		prev = d
	}
	if g := end.Sub(prev); ms(g) > res.MaxGapMs {
		res.MaxGapMs = ms(g)
	}
	res.MaxGapMs = round2(res.MaxGapMs)
	res.OKPerSec = round2(float64(res.OK) / window.Seconds())
	res.DonePerSec = round2(float64(done) / window.Seconds())
	res.LatencyMs = summarize(lat)
	res.ErrorSamples = errSamples.list
	res.BadSamples = badSamples.list
	return res, nil
}

// ---------------------------------------------------------------------------------------------
// fill: pre-population, the same way for every server

func fill(cfg Config, base *tls.Config) (any, error) {
	rt := clientRT{h1Client(base, cfg.Conns, true)}
	ctx := context.Background()
	path := "/api/v1/namespaces/" + cfg.Namespace + "/configmaps"
	var next atomic.Int64
	next.Store(int64(cfg.From))
	var ok, failed atomic.Int64
	var bad samples
	t0 := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < cfg.Conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(cfg.To) {
					return
				}
				name := fmt.Sprintf("cm-%d", i)
				var st int
				var b []byte
				var err error
				// Transport errors are retried (a create that failed on the wire may have been stored: 409 then counts).
				for attempt := 0; attempt < 5; attempt++ {
					st, b, err = do(rt, newRequest(ctx, "POST", cfg.Server, path, configMapBody(name, cfg.Namespace)))
					if err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				if err == nil && (st == 201 || (st == 409 && bytes.Contains(b, []byte("AlreadyExists")))) {
					ok.Add(1)
				} else {
					failed.Add(1)
					if err != nil {
						bad.add(err.Error())
					} else {
						bad.add(fmt.Sprintf("%d %s", st, b))
					}
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	return map[string]any{"ok": ok.Load(), "failed": failed.Load(), "ms": round2(ms(el)), "perSec": round2(float64(ok.Load()) / el.Seconds()), "samples": bad.list}, nil
}

// ---------------------------------------------------------------------------------------------
// list: unpaged or paged (following metadata.continue)

type ListRun struct {
	TotalMs float64   `json:"totalMs"`
	Pages   int       `json:"pages"`
	Items   int       `json:"items"`
	Bytes   int64     `json:"bytes"`
	PageMs  []float64 `json:"pageMs"`
	// First page; continue pages (p50/p99/max/mean).
	FirstPageMs  float64 `json:"firstPageMs"`
	ContinueMs   Summary `json:"continueMs"`
	LastTenthMs  float64 `json:"lastTenthMeanMs"`
	FirstTenthMs float64 `json:"firstTenthMeanMs"`
}

var (
	itemsKey    = []byte(`"items":`)
	continueKey = []byte(`"continue":"`)
	uidKey      = []byte(`"uid":"`)
)

// continueOf: metadata.continue of a list answer, looked up in the part before "items" (metadata
// comes first in both servers' lists) and unquoted as JSON.
func continueOf(b []byte) (string, error) {
	head := b
	if i := bytes.Index(b, itemsKey); i >= 0 {
		head = b[:i]
	}
	i := bytes.Index(head, continueKey)
	if i < 0 {
		return "", nil
	}
	rest := head[i+len(continueKey)-1:]
	j := 1
	for j < len(rest) && rest[j] != '"' {
		if rest[j] == '\\' {
			j++
		}
		j++
	}
	var s string
	if j >= len(rest) {
		return "", errors.New("unterminated continue token")
	}
	err := json.Unmarshal(rest[:j+1], &s)
	return s, err
}

func list(cfg Config, base *tls.Config) (any, error) {
	rt := clientRT{h1Client(base, 1, true)}
	ctx := context.Background()
	// One untimed request opens the connection (TLS handshake outside the figures).
	if st, b, err := do(rt, newRequest(ctx, "GET", cfg.Server, "/api/v1/namespaces/default", nil)); err != nil || st != 200 {
		return nil, fmt.Errorf("warm-up GET: %v %d %s", err, st, b)
	}
	var runs []ListRun
	for r := 0; r < cfg.Runs; r++ {
		var run ListRun
		t0 := time.Now()
		cont := ""
		for {
			p := cfg.Path
			q := url.Values{}
			if cfg.Limit > 0 {
				q.Set("limit", strconv.Itoa(cfg.Limit))
			}
			if cont != "" {
				q.Set("continue", cont)
			}
			if len(q) > 0 {
				p += "?" + q.Encode()
			}
			p0 := time.Now()
			st, b, err := do(rt, newRequest(ctx, "GET", cfg.Server, p, nil))
			if err != nil {
				return nil, err
			}
			if st != 200 {
				return nil, fmt.Errorf("GET %s: %d %.300s", p, st, b)
			}
			run.PageMs = append(run.PageMs, round2(ms(time.Since(p0))))
			run.Pages++
			run.Bytes += int64(len(b))
			run.Items += bytes.Count(b, uidKey)
			if cfg.Limit <= 0 {
				break
			}
			if cont, err = continueOf(b); err != nil {
				return nil, err
			}
			if cont == "" {
				break
			}
		}
		run.TotalMs = round2(ms(time.Since(t0)))
		run.FirstPageMs = run.PageMs[0]
		if len(run.PageMs) > 1 {
			run.ContinueMs = summarize(append([]float64(nil), run.PageMs[1:]...))
		}
		tenth := len(run.PageMs) / 10
		if tenth < 1 {
			tenth = 1
		}
		mean := func(s []float64) float64 {
			t := 0.0
			for _, v := range s {
				t += v
			}
			return round2(t / float64(len(s)))
		}
		run.FirstTenthMs = mean(run.PageMs[:tenth])
		run.LastTenthMs = mean(run.PageMs[len(run.PageMs)-tenth:])
		if len(run.PageMs) > 50 {
			run.PageMs = nil // summaries suffice for long runs
		}
		runs = append(runs, run)
	}
	return map[string]any{"runs": runs}, nil
}

// ---------------------------------------------------------------------------------------------
// watch fan-out

type WatchResult struct {
	Watchers       int      `json:"watchers"`
	Conns          int      `json:"conns"`
	OpenMs         float64  `json:"openMs"`
	Dropped        int      `json:"dropped"`
	DroppedSamples []string `json:"droppedSamples"`
	// Writes sent in the window and acknowledged 201, their rate, and the writer's latency.
	Writes         int            `json:"writes"`
	TargetRate     float64        `json:"targetRate"`
	WriteRate      float64        `json:"writeRate"`
	WriteStatuses  map[string]int `json:"writeStatuses"`
	WriteErrors    int            `json:"writeErrors"`
	WriteLatencyMs Summary        `json:"writeLatencyMs"`
	Expected       int            `json:"expected"`
	Matched        int            `json:"matched"`
	Missing        int            `json:"missing"`
	Received       int            `json:"received"`
	// Receive time − the writer's ack (answer read) and − its send, per delivery.
	DeliveryMs         Summary `json:"deliveryMs"`
	DeliveryFromSendMs Summary `json:"deliveryFromSendMs"`
	// ADDED events received by all watchers inside the write window, per second: the fan-out
	// throughput (at most rate × watchers; below it when the server falls behind).
	DeliveredPerSec float64 `json:"deliveredPerSec"`
}

type event struct {
	rv string
	at time.Time
}

func watch(cfg Config, base *tls.Config) (any, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := cfg.Namespace
	wc := clientRT{h1Client(base, cfg.WriterConns, true)}
	// The collection's resourceVersion: watches start there (no synthetic ADDED of older objects).
	st, b, err := do(wc, newRequest(ctx, "GET", cfg.Server, "/api/v1/namespaces/"+ns+"/configmaps?limit=1", nil))
	if err != nil || st != 200 {
		return nil, fmt.Errorf("list %s: %v %d %.300s", ns, err, st, b)
	}
	startRV := firstRV(b)

	per := cfg.StreamsPerConn
	if per <= 0 {
		per = 100
	}
	nConns := (cfg.Watchers + per - 1) / per
	conns := make([]*http2.ClientConn, nConns)
	for i := range conns {
		if conns[i], err = h2Conn(base, cfg.Server); err != nil {
			return nil, err
		}
		defer conns[i].Close()
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=3600&resourceVersion=" + url.QueryEscape(startRV)
	events := make([][]event, cfg.Watchers)
	var dropped atomic.Int64
	var dropSamples samples
	var opened sync.WaitGroup
	var done sync.WaitGroup
	var stopping atomic.Bool
	openErr := make(chan error, cfg.Watchers)
	t0 := time.Now()
	for w := 0; w < cfg.Watchers; w++ {
		opened.Add(1)
		done.Add(1)
		go func(w int) {
			defer done.Done()
			resp, err := conns[w%nConns].RoundTrip(newRequest(ctx, "GET", cfg.Server, path, nil))
			if err == nil && resp.StatusCode != 200 {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				err = fmt.Errorf("watch answered %d %.300s", resp.StatusCode, b)
			}
			opened.Done()
			if err != nil {
				openErr <- err
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
			local := make([]event, 0, 256)
			for sc.Scan() {
				at := time.Now()
				line := sc.Bytes()
				if len(line) == 0 {
					continue
				}
				if !bytes.HasPrefix(line, []byte(`{"type":"ADDED"`)) {
					if bytes.HasPrefix(line, []byte(`{"type":"ERROR"`)) {
						dropSamples.add(string(line))
						dropped.Add(1)
						break
					}
					continue
				}
				local = append(local, event{firstRV(line), at})
			}
			if !stopping.Load() {
				dropped.Add(1)
				if err := sc.Err(); err != nil {
					dropSamples.add(err.Error())
				} else {
					dropSamples.add("stream ended")
				}
			}
			events[w] = local
		}(w)
	}
	opened.Wait()
	close(openErr)
	for err := range openErr {
		return nil, fmt.Errorf("opening watches: %w", err)
	}
	openMs := ms(time.Since(t0))
	time.Sleep(200 * time.Millisecond)

	// Paced open-loop writer: creates at `rate`/s whatever the answers' latency.
	type wrec struct {
		sent, ack time.Time
		status    int
		rv        string
		err       bool
	}
	interval := time.Duration(float64(time.Second) / cfg.Rate)
	wStart := time.Now()
	winStart := wStart.Add(time.Duration(cfg.WarmupMs) * time.Millisecond)
	wEnd := winStart.Add(time.Duration(cfg.DurationMs) * time.Millisecond)
	var wmu sync.Mutex
	var writes []wrec
	var wwg sync.WaitGroup
	body := func(i int) []byte { return configMapBody(fmt.Sprintf("w-%d", i), ns) }
	for i := 0; ; i++ {
		target := wStart.Add(time.Duration(i) * interval)
		if !target.Before(wEnd) {
			break
		}
		time.Sleep(time.Until(target))
		wwg.Add(1)
		go func(i int) {
			defer wwg.Done()
			sent := time.Now()
			st, b, err := do(wc, newRequest(ctx, "POST", cfg.Server, "/api/v1/namespaces/"+ns+"/configmaps", body(i)))
			r := wrec{sent: sent, ack: time.Now(), status: st, err: err != nil}
			if err == nil && st == 201 {
				r.rv = firstRV(b)
			}
			wmu.Lock()
			writes = append(writes, r)
			wmu.Unlock()
		}(i)
	}
	wwg.Wait()
	time.Sleep(time.Duration(cfg.DrainMs) * time.Millisecond)
	stopping.Store(true)
	cancel()
	for _, c := range conns {
		c.Close()
	}
	done.Wait()

	res := WatchResult{Watchers: cfg.Watchers, Conns: nConns, OpenMs: round2(openMs), Dropped: int(dropped.Load()), DroppedSamples: dropSamples.list, TargetRate: cfg.Rate, WriteStatuses: map[string]int{}}
	byRV := map[string]wrec{}
	var wlat []float64
	for _, w := range writes {
		if w.sent.Before(winStart) {
			continue
		}
		if w.err {
			res.WriteErrors++
			continue
		}
		res.WriteStatuses[strconv.Itoa(w.status)]++
		wlat = append(wlat, ms(w.ack.Sub(w.sent)))
		if w.status == 201 && w.rv != "" {
			byRV[w.rv] = w
			res.Writes++
		}
	}
	res.WriteRate = round2(float64(res.Writes) / wEnd.Sub(winStart).Seconds())
	res.WriteLatencyMs = summarize(wlat)
	res.Expected = res.Writes * cfg.Watchers
	var dl, ds []float64
	inWindow := 0
	for _, evs := range events {
		res.Received += len(evs)
		for _, e := range evs {
			if !e.at.Before(winStart) && !e.at.After(wEnd) {
				inWindow++
			}
			if w, ok := byRV[e.rv]; ok {
				dl = append(dl, ms(e.at.Sub(w.ack)))
				ds = append(ds, ms(e.at.Sub(w.sent)))
			}
		}
	}
	res.DeliveredPerSec = round2(float64(inWindow) / wEnd.Sub(winStart).Seconds())
	res.Matched = len(dl)
	res.Missing = res.Expected - res.Matched
	res.DeliveryMs = summarize(dl)
	res.DeliveryFromSendMs = summarize(ds)
	return res, nil
}

// ---------------------------------------------------------------------------------------------
// readyz

func monoNowMs() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return float64(ts.Sec)*1e3 + float64(ts.Nsec)/1e6
}

func readyz(cfg Config, base *tls.Config) (any, error) {
	interval := time.Duration(cfg.IntervalMs) * time.Millisecond
	if interval <= 0 {
		interval = 10 * time.Millisecond
	}
	deadline := time.Now().Add(time.Duration(cfg.TimeoutMs) * time.Millisecond)
	// A fresh TLS connection per attempt, so a server that is not listening yet is simply retried.
	c := h1Client(base, 1, false)
	attempts := 0
	last := ""
	for time.Now().Before(deadline) {
		attempts++
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, b, err := do(clientRT{c}, newRequest(ctx, "GET", cfg.Server, "/readyz", nil))
		cancel()
		if err == nil && st == 200 {
			return map[string]any{"monoMs": monoNowMs(), "attempts": attempts}, nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("%d %.200s", st, b)
		}
		time.Sleep(interval)
	}
	return nil, fmt.Errorf("/readyz not 200 after %d attempts (last: %s)", attempts, last)
}

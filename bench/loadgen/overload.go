package main

// overload: `conns` HTTP/1.1 connections (one per worker, each dialed by its worker) creating 1 KiB
// ConfigMaps closed-loop for warmup+duration as a non-exempt user (bearer `token`), as an overload
// of kube-apiserver is usually met: a client that honours Retry-After after a 429 (client-go does).
// Beside it, every `probeIntervalMs`, an admin request (system:masters, `kubectl get ns`: a fresh
// TLS connection, kubectl's 10 s handshake timeout) and an anonymous /readyz on a fresh connection.
// Failures are classified: reset (ECONNRESET), refused, timeout (client 60 s, TLS 10 s), eof, other.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type OverloadResult struct {
	Conns       int                `json:"conns"`
	WindowMs    float64            `json:"windowMs"`
	Sent        int64              `json:"sent"`
	Statuses    map[string]int     `json:"statuses"`
	Failures    map[string]int     `json:"failures"`
	FailSamples []string           `json:"failureSamples"`
	BadSamples  []string           `json:"badSamples"`
	RetryAfter  map[string]int     `json:"retryAfter"`
	LatencyMs   Summary            `json:"latencyMs"`
	CreatedMs   Summary            `json:"createdLatencyMs"`
	RejectedMs  Summary            `json:"rejectedLatencyMs"`
	CreatedPerS float64            `json:"createdPerSec"`
	Admin       ProbeSeries        `json:"admin"`
	Health      ProbeSeries        `json:"health"`
	ConnectMs   Summary            `json:"firstAnswerMs"`
	Extra       map[string]float64 `json:"extra,omitempty"`
}

type ProbeSeries struct {
	LatencyMs Summary `json:"latencyMs"`
	// Where a probe waited: TCP connect (the kernel's listen queue: a dropped SYN is retried after
	// 1 s), the TLS handshake from connect (the server accepting the connection and answering the
	// ClientHello), and the request from the handshake's end to the response's first byte (parsing,
	// the handler, APF).
	ConnectMs   Summary `json:"connectMs"`
	HandshakeMs Summary `json:"handshakeMs"`
	RequestMs   Summary `json:"requestMs"`
	// Probes over 1 s: when they started (ms into the window) and their phases in ms.
	Slow     []string       `json:"slow"`
	Statuses map[string]int `json:"statuses"`
	Failures map[string]int `json:"failures"`
	Samples  []string       `json:"samples"`
}

func classify(err error) string {
	var ne net.Error
	s := err.Error()
	switch {
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(s, "connection reset"):
		return "reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case strings.Contains(s, "TLS handshake timeout"):
		return "tls-timeout"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(s, "EOF"):
		return "eof"
	case errors.Is(err, syscall.EPIPE) || strings.Contains(s, "broken pipe"):
		return "broken-pipe"
	}
	return "other"
}

func overload(cfg Config, base *tls.Config) (any, error) {
	if cfg.Token == "" {
		return nil, fmt.Errorf("overload needs a token (a non-exempt user)")
	}
	// The load's TLS: the CA only, no client certificate (the bearer token is the identity).
	loadTLS := &tls.Config{RootCAs: base.RootCAs, MinVersion: base.MinVersion, NextProtos: []string{"http/1.1"}}
	ns := cfg.Namespace
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	start := time.Now()
	winStart := start.Add(time.Duration(cfg.WarmupMs) * time.Millisecond)
	end := winStart.Add(time.Duration(cfg.DurationMs) * time.Millisecond)

	type rec struct {
		lat    float64
		status int
		done   time.Time
	}
	var mu sync.Mutex
	res := OverloadResult{Conns: cfg.Conns, Statuses: map[string]int{}, Failures: map[string]int{}, RetryAfter: map[string]int{}}
	var all, created, rejected, firsts []float64
	var failSamples, badSamples samples
	createdInWindow := 0
	var wg sync.WaitGroup
	for w := 0; w < cfg.Conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// One connection per worker, as 2,000 separate clients would have.
			tr := &http.Transport{
				TLSClientConfig: loadTLS, MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, IdleConnTimeout: 90 * time.Second,
				DisableCompression: true, ForceAttemptHTTP2: false, TLSHandshakeTimeout: 10 * time.Second,
				TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
				DialContext:  (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
			var local []rec
			first := true
			for seq := 0; time.Now().Before(end); seq++ {
				name := fmt.Sprintf("%s-%d-%d", cfg.Prefix, w, seq)
				req := newRequest(context.Background(), "POST", cfg.Server, path, configMapBody(name, ns))
				req.Header.Set("Authorization", "Bearer "+cfg.Token)
				t0 := time.Now()
				resp, err := client.Do(req)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				t1 := time.Now()
				if first {
					mu.Lock()
					firsts = append(firsts, ms(t1.Sub(start)))
					mu.Unlock()
					first = false
				}
				if err != nil {
					c := classify(err)
					mu.Lock()
					if !t0.Before(winStart) {
						res.Failures[c]++
					}
					mu.Unlock()
					failSamples.add(c + ": " + err.Error())
					time.Sleep(10 * time.Millisecond)
					continue
				}
				if !t0.Before(winStart) {
					local = append(local, rec{ms(t1.Sub(t0)), resp.StatusCode, t1})
				}
				switch resp.StatusCode {
				case 201:
				case 429:
					ra := resp.Header.Get("Retry-After")
					mu.Lock()
					res.RetryAfter[ra]++
					mu.Unlock()
					if n, e := strconv.Atoi(ra); e == nil && n > 0 {
						time.Sleep(time.Duration(n) * time.Second)
					}
				default:
					badSamples.add(fmt.Sprintf("%d %s", resp.StatusCode, body))
				}
			}
			mu.Lock()
			for _, r := range local {
				res.Statuses[strconv.Itoa(r.status)]++
				all = append(all, r.lat)
				if r.status == 201 {
					created = append(created, r.lat)
					if !r.done.After(end) {
						createdInWindow++
					}
				} else if r.status == 429 {
					rejected = append(rejected, r.lat)
				}
				res.Sent++
			}
			mu.Unlock()
		}(w)
	}

	probe := func(path string, withCert bool) *ProbeSeries {
		out := &ProbeSeries{Statuses: map[string]int{}, Failures: map[string]int{}}
		var lat, connect, handshake, request []float64
		var smp samples
		t := &tls.Config{RootCAs: base.RootCAs, MinVersion: base.MinVersion, NextProtos: []string{"http/1.1"}}
		if withCert {
			t.Certificates = base.Certificates
		}
		time.Sleep(time.Until(winStart))
		interval := time.Duration(cfg.ProbeIntervalMs) * time.Millisecond
		for next := time.Now(); next.Before(end); next = next.Add(interval) {
			time.Sleep(time.Until(next))
			tr := &http.Transport{TLSClientConfig: t, DisableKeepAlives: true, TLSHandshakeTimeout: 10 * time.Second, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
			c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			var connected, shaken, firstByte time.Time
			trace := &httptrace.ClientTrace{
				ConnectDone:          func(string, string, error) { connected = time.Now() },
				TLSHandshakeDone:     func(tls.ConnectionState, error) { shaken = time.Now() },
				GotFirstResponseByte: func() { firstByte = time.Now() },
			}
			req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", cfg.Server+path, nil)
			t0 := time.Now()
			resp, err := c.Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if err != nil {
				out.Failures[classify(err)]++
				smp.add(err.Error())
				continue
			}
			lat = append(lat, ms(time.Since(t0)))
			if !connected.IsZero() && !shaken.IsZero() && !firstByte.IsZero() {
				connect = append(connect, ms(connected.Sub(t0)))
				handshake = append(handshake, ms(shaken.Sub(connected)))
				request = append(request, ms(firstByte.Sub(shaken)))
				if d := time.Since(t0); d > time.Second {
					out.Slow = append(out.Slow, fmt.Sprintf("at %.0f: %.0f = connect %.0f + TLS %.0f + request %.0f", ms(t0.Sub(winStart)), ms(d), ms(connected.Sub(t0)), ms(shaken.Sub(connected)), ms(firstByte.Sub(shaken))))
				}
			}
			out.Statuses[strconv.Itoa(resp.StatusCode)]++
		}
		out.LatencyMs = summarize(lat)
		out.ConnectMs, out.HandshakeMs, out.RequestMs = summarize(connect), summarize(handshake), summarize(request)
		out.Samples = smp.list
		return out
	}
	var admin, health *ProbeSeries
	var pw sync.WaitGroup
	if cfg.ProbeIntervalMs > 0 {
		pw.Add(2)
		go func() { defer pw.Done(); admin = probe("/api/v1/namespaces", true) }()
		go func() { defer pw.Done(); health = probe("/readyz", false) }()
	}
	wg.Wait()
	pw.Wait()
	if admin != nil {
		res.Admin = *admin
		res.Health = *health
	}
	window := end.Sub(winStart)
	res.WindowMs = ms(window)
	res.LatencyMs = summarize(all)
	res.CreatedMs = summarize(created)
	res.RejectedMs = summarize(rejected)
	res.ConnectMs = summarize(firsts)
	res.CreatedPerS = round2(float64(createdInWindow) / window.Seconds())
	res.FailSamples = failSamples.list
	res.BadSamples = badSamples.list
	fmt.Fprintf(os.Stderr, "overload: %d sent, statuses %v, failures %v\n", res.Sent, res.Statuses, res.Failures)
	return res, nil
}

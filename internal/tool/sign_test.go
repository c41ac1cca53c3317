package tool

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

var (
	leaderKey   = chain.KeyFromSeed("tool-test-leader")
	leaderAddr  = string(chain.KeyAddress(leaderKey))
	strangerKey = chain.KeyFromSeed("tool-test-stranger")
)

// signedRequest returns a POST /invoke of body signed by key at at.
func signedRequest(t testing.TB, key chain.Key, at time.Time, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://tool.test/invoke", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := Sign(req, key, at); err != nil {
		t.Fatal(err)
	}
	return req
}

func onlyLeader(l string) bool { return l == leaderAddr }

func TestSignVerify(t *testing.T) {
	now := clock.Epoch
	body := `{"input":{"text":"hi"}}`
	tests := []struct {
		name string
		req  func() *http.Request
		body string // the body the verifier sees; defaults to body
		want error
	}{
		{"valid", func() *http.Request { return signedRequest(t, leaderKey, now, body) }, "", nil},
		{"valid at the window's edge", func() *http.Request { return signedRequest(t, leaderKey, now.Add(-DefaultWindow), body) }, "", nil},
		{"missing all headers", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, "http://tool.test/invoke", strings.NewReader(body))
			return r
		}, "", ErrUnsigned},
		{"missing the signature", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.Header.Del(HeaderSignature)
			return r
		}, "", ErrUnsigned},
		{"wrong key under the leader's name", func() *http.Request {
			r := signedRequest(t, strangerKey, now, body)
			r.Header.Set(HeaderLeader, leaderAddr)
			return r
		}, "", ErrBadSignature},
		{"a leader not allowed", func() *http.Request { return signedRequest(t, strangerKey, now, body) }, "", ErrUnknownLeader},
		{"an old timestamp (a replay of an old request)", func() *http.Request {
			return signedRequest(t, leaderKey, now.Add(-DefaultWindow-time.Second), body)
		}, "", ErrStale},
		{"a timestamp in the future", func() *http.Request {
			return signedRequest(t, leaderKey, now.Add(DefaultWindow+time.Second), body)
		}, "", ErrStale},
		{"a tampered body", func() *http.Request { return signedRequest(t, leaderKey, now, body) }, `{"input":{"text":"ho"}}`, ErrBadSignature},
		{"a moved timestamp", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix()-1, 10))
			return r
		}, "", ErrBadSignature},
		{"another path", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.URL.Path = "/other/invoke"
			return r
		}, "", ErrBadSignature},
		{"another method", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.Method = http.MethodPut
			return r
		}, "", ErrBadSignature},
		{"a header given twice", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.Header.Add(HeaderLeader, leaderAddr)
			return r
		}, "", ErrBadSignature},
		{"upper-case hex signature", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.Header.Set(HeaderSignature, strings.ToUpper(r.Header.Get(HeaderSignature)))
			return r
		}, "", ErrBadSignature},
		{"a signed timestamp", func() *http.Request {
			r := signedRequest(t, leaderKey, now, body)
			r.Header.Set(HeaderTimestamp, "+"+r.Header.Get(HeaderTimestamp))
			return r
		}, "", ErrBadSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.body
			if b == "" {
				b = body
			}
			sh, err := Verify(tc.req(), []byte(b), onlyLeader, now, 0)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
			if err == nil && string(sh.Leader) != leaderAddr {
				t.Fatalf("leader %s, want %s", sh.Leader, leaderAddr)
			}
		})
	}
}

func TestSignKeepsBody(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "http://tool.test/invoke", nil)
	req.Body = readCloser{strings.NewReader("abc")} // no GetBody: Sign reads and restores it
	if err := Sign(req, leaderKey, clock.Epoch); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(req.Body)
	if buf.String() != "abc" {
		t.Fatalf("body after Sign = %q", buf.String())
	}
	if _, err := Verify(req, []byte("abc"), nil, clock.Epoch, 0); err != nil {
		t.Fatal(err)
	}
	if err := Sign(req, ed25519.PrivateKey{1, 2}, clock.Epoch); err == nil {
		t.Fatal("Sign with a short key succeeded")
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func TestVerifierRefusesReplays(t *testing.T) {
	now := clock.Epoch
	v := NewVerifier(onlyLeader, time.Minute)
	body := []byte(`{"input":1}`)
	req := signedRequest(t, leaderKey, now, string(body))
	if _, err := v.Verify(req, body, now); err != nil {
		t.Fatal(err)
	}
	// The same signed request again, later but within the window.
	if _, err := v.Verify(req, body, now.Add(30*time.Second)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second Verify = %v, want ErrReplayed", err)
	}
	// The same input signed a second later is a new request.
	req2 := signedRequest(t, leaderKey, now.Add(time.Second), string(body))
	if _, err := v.Verify(req2, body, now.Add(time.Second)); err != nil {
		t.Fatalf("a new signature of the same body: %v", err)
	}
	// A signature that does not verify is not remembered.
	bad := signedRequest(t, leaderKey, now, `{"input":2}`)
	if _, err := v.Verify(bad, body, now); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("tampered = %v", err)
	}
	if n := v.Remembered(); n != 2 {
		t.Fatalf("remembered %d signatures, want 2", n)
	}
	// Once the window has passed, the old request is stale and forgotten.
	later := now.Add(time.Minute + 2*time.Second)
	if _, err := v.Verify(req, body, later); !errors.Is(err, ErrStale) {
		t.Fatalf("replay after the window = %v, want ErrStale", err)
	}
	fresh := signedRequest(t, leaderKey, later, string(body))
	if _, err := v.Verify(fresh, body, later); err != nil {
		t.Fatal(err)
	}
	if n := v.Remembered(); n != 1 {
		t.Fatalf("remembered %d signatures after the window, want 1", n)
	}
}

func TestParseHeaders(t *testing.T) {
	sig := strings.Repeat("ab", ed25519.SignatureSize)
	tests := []struct {
		leader, ts, sig string
		want            error
	}{
		{leaderAddr, "1767225600", sig, nil},
		{leaderAddr, "0", sig, nil},
		{"", "1", sig, ErrUnsigned},
		{leaderAddr, "", sig, ErrUnsigned},
		{leaderAddr, "1", "", ErrUnsigned},
		{strings.ToUpper(leaderAddr), "1", sig, ErrBadSignature},
		{leaderAddr[:62], "1", sig, ErrBadSignature},
		{leaderAddr, "01", sig, ErrBadSignature},
		{leaderAddr, "-1", sig, ErrBadSignature},
		{leaderAddr, "1e9", sig, ErrBadSignature},
		{leaderAddr, "99999999999999999999", sig, ErrBadSignature},
		{leaderAddr, "9999999999999999999", sig, ErrBadSignature}, // over int64
		{leaderAddr, "1", sig[:126], ErrBadSignature},
		{leaderAddr, "1", "zz" + sig[2:], ErrBadSignature},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range map[string]string{HeaderLeader: tc.leader, HeaderTimestamp: tc.ts, HeaderSignature: tc.sig} {
			if v != "" {
				h.Set(k, v)
			}
		}
		_, err := ParseHeaders(h)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("ParseHeaders(%q, %q, %q) = %v, want %v", tc.leader, tc.ts, tc.sig, err, tc.want)
		}
	}
}

// FuzzParseHeaders checks that the header parser never panics, accepts only
// the canonical spelling (what it parsed prints back the same), and that
// Verify never accepts a request it did not sign, in either scheme.
func FuzzParseHeaders(f *testing.F) {
	req := signedRequest(f, leaderKey, clock.Epoch, `{"input":1}`)
	f.Add(req.Header.Get(HeaderLeader), req.Header.Get(HeaderTimestamp), req.Header.Get(HeaderSignature))
	evmReq := signedRequest(f, evmLeaderKey, clock.Epoch, `{"input":1}`)
	f.Add(evmReq.Header.Get(HeaderLeader), evmReq.Header.Get(HeaderTimestamp), evmReq.Header.Get(HeaderSignature))
	f.Add(evmLeaderAddr, "1", strings.Repeat("0", 128))
	f.Add(leaderAddr, "01", "00")
	f.Add("", "-0", strings.Repeat("f", 128))
	f.Add(leaderAddr, "9223372036854775807", strings.Repeat("0", 128))
	f.Fuzz(func(t *testing.T, leader, ts, sig string) {
		h := http.Header{}
		h.Set(HeaderLeader, leader)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		sh, err := ParseHeaders(h)
		if err != nil {
			if !errors.Is(err, ErrUnsigned) && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("ParseHeaders error %v is neither ErrUnsigned nor ErrBadSignature", err)
			}
			return
		}
		if string(sh.Leader) != leader || strconv.FormatInt(sh.Timestamp, 10) != ts || hex.EncodeToString(sh.Signature) != sig {
			t.Fatalf("parsed %+v does not print back as %q %q %q", sh, leader, ts, sig)
		}
		r, _ := http.NewRequest(http.MethodPost, "http://tool.test/invoke", nil)
		r.Header = h
		signed := false
		for _, q := range []*http.Request{req, evmReq} {
			signed = signed || q.Header.Get(HeaderSignature) == sig && q.Header.Get(HeaderTimestamp) == ts && q.Header.Get(HeaderLeader) == leader
		}
		if _, err := Verify(r, []byte(`{"input":1}`), nil, time.Unix(sh.Timestamp, 0), 0); (err == nil) != signed {
			t.Fatalf("Verify of a fuzzed signature = %v (signed by us: %v)", err, signed)
		}
	})
}

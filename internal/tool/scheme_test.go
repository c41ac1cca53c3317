package tool

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/clock"
)

var (
	evmLeaderKey   = evm.DevKey(7)
	evmLeaderAddr  = string(evm.KeyAddress(evmLeaderKey))
	evmStrangerKey = evm.DevKey(8)
)

// leaderScheme is one scheme's leader, stranger and signature length.
type leaderScheme struct {
	name          string
	key, stranger chain.Key
	addr          string
	sigLen        int
}

var leaderSchemes = []leaderScheme{
	{"ed25519", leaderKey, strangerKey, leaderAddr, ed25519.SignatureSize},
	{"secp256k1", evmLeaderKey, evmStrangerKey, evmLeaderAddr, crypto.SignatureLength},
}

// sigEdit rewrites a request's signature bytes.
func sigEdit(t *testing.T, r *http.Request, edit func([]byte) []byte) *http.Request {
	t.Helper()
	raw, err := hex.DecodeString(r.Header.Get(HeaderSignature))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set(HeaderSignature, hex.EncodeToString(edit(raw)))
	return r
}

// TestSignVerifySchemes: each scheme's leader signs and verifies, and each
// change to a signed request is refused with the sentinel a caller
// branches on.
func TestSignVerifySchemes(t *testing.T) {
	t.Parallel()
	now := clock.Epoch
	body := `{"input":{"a":1}}`
	for _, s := range leaderSchemes {
		allowed := func(l string) bool { return l == s.addr }
		tests := []struct {
			name    string
			req     func(t *testing.T) *http.Request
			body    string // the body the verifier sees; defaults to body
			allowed func(string) bool
			want    error
		}{
			{"valid", func(t *testing.T) *http.Request { return signedRequest(t, s.key, now, body) }, "", nil, nil},
			{"valid, allowed", func(t *testing.T) *http.Request { return signedRequest(t, s.key, now, body) }, "", allowed, nil},
			{"wrong key under the leader's name", func(t *testing.T) *http.Request {
				r := signedRequest(t, s.stranger, now, body)
				r.Header.Set(HeaderLeader, s.addr)
				return r
			}, "", nil, ErrBadSignature},
			{"the leader's signature under another name", func(t *testing.T) *http.Request {
				r := signedRequest(t, s.key, now, body)
				r.Header.Set(HeaderLeader, signedRequest(t, s.stranger, now, body).Header.Get(HeaderLeader))
				return r
			}, "", nil, ErrBadSignature},
			{"a leader not allowed", func(t *testing.T) *http.Request { return signedRequest(t, s.stranger, now, body) }, "", allowed, ErrUnknownLeader},
			{"a tampered body", func(t *testing.T) *http.Request { return signedRequest(t, s.key, now, body) }, `{"input":{"a":2}}`, nil, ErrBadSignature},
			{"another path", func(t *testing.T) *http.Request {
				r := signedRequest(t, s.key, now, body)
				r.URL.Path = "/x/invoke"
				return r
			}, "", nil, ErrBadSignature},
			{"a moved timestamp", func(t *testing.T) *http.Request {
				r := signedRequest(t, s.key, now, body)
				r.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10))
				return r
			}, "", nil, ErrBadSignature},
			{"stale", func(t *testing.T) *http.Request {
				return signedRequest(t, s.key, now.Add(-DefaultWindow-time.Second), body)
			}, "", nil, ErrStale},
			{"a flipped bit", func(t *testing.T) *http.Request {
				return sigEdit(t, signedRequest(t, s.key, now, body), func(b []byte) []byte { b[10] ^= 1; return b })
			}, "", nil, ErrBadSignature},
			{"one byte short", func(t *testing.T) *http.Request {
				return sigEdit(t, signedRequest(t, s.key, now, body), func(b []byte) []byte { return b[:len(b)-1] })
			}, "", nil, ErrBadSignature},
			{"one byte long", func(t *testing.T) *http.Request {
				return sigEdit(t, signedRequest(t, s.key, now, body), func(b []byte) []byte { return append(b, 27) })
			}, "", nil, ErrBadSignature},
			{"0x before the signature", func(t *testing.T) *http.Request {
				r := signedRequest(t, s.key, now, body)
				r.Header.Set(HeaderSignature, "0x"+r.Header.Get(HeaderSignature))
				return r
			}, "", nil, ErrBadSignature},
		}
		for _, tc := range tests {
			t.Run(s.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				b := tc.body
				if b == "" {
					b = body
				}
				sh, err := Verify(tc.req(t), []byte(b), tc.allowed, now, 0)
				if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Fatalf("Verify = %v, want %v", err, tc.want)
				}
				if err == nil && (string(sh.Leader) != s.addr || len(sh.Signature) != s.sigLen) {
					t.Fatalf("leader %s with a %d-byte signature, want %s and %d", sh.Leader, len(sh.Signature), s.addr, s.sigLen)
				}
			})
		}
	}
}

// TestSecp256k1Form: a 0x leader's signature is 65 bytes [R||S||V] over
// the EIP-191 hash of SigningString, V 27 or 28 and S low, and nothing
// else: another V or the malleated (N-S, V^1) twin, which recovers to the
// same address, is refused, so it cannot pass a Verifier as a new request.
func TestSecp256k1Form(t *testing.T) {
	t.Parallel()
	now := clock.Epoch
	body := `{"input":1}`
	req := signedRequest(t, evmLeaderKey, now, body)
	if got := req.Header.Get(HeaderLeader); got != evmLeaderAddr || !strings.HasPrefix(got, "0x") {
		t.Fatalf("Ordo-Leader %q, want %s", got, evmLeaderAddr)
	}
	raw, _ := hex.DecodeString(req.Header.Get(HeaderSignature))
	if len(raw) != 65 || (raw[64] != 27 && raw[64] != 28) {
		t.Fatalf("signature %x: want 65 bytes ending in V 27 or 28", raw)
	}
	// A wallet's personal_sign of SigningString recovers to the leader.
	msg := SigningString(http.MethodPost, "/invoke", now.Unix(), []byte(body))
	rec := append([]byte(nil), raw...)
	rec[64] -= 27
	pub, err := crypto.SigToPub(accounts.TextHash(msg), rec)
	if err != nil || strings.ToLower(crypto.PubkeyToAddress(*pub).Hex()) != evmLeaderAddr {
		t.Fatalf("the signature does not recover to the leader over the EIP-191 hash: %v", err)
	}
	n := crypto.S256().Params().N
	for name, edit := range map[string]func([]byte) []byte{
		"V 0/1": func(b []byte) []byte { b[64] -= 27; return b },
		"V 29":  func(b []byte) []byte { b[64] = 29; return b },
		"high S": func(b []byte) []byte {
			s := new(big.Int).Sub(n, new(big.Int).SetBytes(b[32:64]))
			s.FillBytes(b[32:64])
			b[64] = 27 + 28 - b[64]
			return b
		},
		"zero R": func(b []byte) []byte { clear(b[:32]); return b },
	} {
		r := sigEdit(t, signedRequest(t, evmLeaderKey, now, body), edit)
		if _, err := Verify(r, []byte(body), nil, now, 0); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: Verify = %v, want ErrBadSignature", name, err)
		}
	}
}

// TestSchemesDoNotMix: a signature's length is its leader's scheme's, and
// a key of neither scheme does not sign.
func TestSchemesDoNotMix(t *testing.T) {
	t.Parallel()
	now := clock.Epoch
	body := `{"input":1}`
	ed := signedRequest(t, leaderKey, now, body)
	ev := signedRequest(t, evmLeaderKey, now, body)
	for name, r := range map[string]*http.Request{
		"a 64-byte signature under a 0x leader": func() *http.Request {
			ed.Header.Set(HeaderLeader, evmLeaderAddr)
			return ed
		}(),
		"a 65-byte signature under an ed25519 leader": func() *http.Request {
			ev.Header.Set(HeaderLeader, leaderAddr)
			return ev
		}(),
	} {
		if _, err := ParseHeaders(r.Header); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: ParseHeaders = %v, want ErrBadSignature", name, err)
		}
	}
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]chain.Key{"P-256": p256, "short ed25519": ed25519.PrivateKey{1, 2}} {
		r, _ := http.NewRequest(http.MethodPost, "http://tool.test/invoke", strings.NewReader(body))
		if err := Sign(r, k, now); !errors.Is(err, chain.ErrBadSignature) {
			t.Errorf("Sign with a %s key = %v, want chain.ErrBadSignature", name, err)
		}
	}
	for _, a := range []string{leaderAddr, evmLeaderAddr} {
		if err := ValidLeader(a); err != nil {
			t.Errorf("ValidLeader(%s) = %v", a, err)
		}
	}
	for _, a := range []string{strings.ToUpper(evmLeaderAddr[2:]), "0X" + evmLeaderAddr[2:], evmLeaderAddr[:41], "0x" + leaderAddr} {
		if err := ValidLeader(a); err == nil {
			t.Errorf("ValidLeader(%s) accepted it", a)
		}
	}
}

// TestVerifierRefusesSecp256k1Replays: a 0x leader's request is accepted
// once within the window, like an ed25519 leader's.
func TestVerifierRefusesSecp256k1Replays(t *testing.T) {
	t.Parallel()
	now := clock.Epoch
	v := NewVerifier(func(l string) bool { return l == evmLeaderAddr }, time.Minute)
	body := []byte(`{"input":1}`)
	req := signedRequest(t, evmLeaderKey, now, string(body))
	if _, err := v.Verify(req, body, now); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(req, body, now.Add(30*time.Second)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second Verify = %v, want ErrReplayed", err)
	}
	again := signedRequest(t, evmLeaderKey, now, string(body))
	if again.Header.Get(HeaderSignature) != req.Header.Get(HeaderSignature) {
		t.Fatal("secp256k1 signing is not deterministic: a Verifier would take a re-signed request as new")
	}
	if _, err := v.Verify(signedRequest(t, evmLeaderKey, now.Add(time.Second), string(body)), body, now.Add(time.Second)); err != nil {
		t.Fatalf("a new signature of the same body: %v", err)
	}
	if _, err := v.Verify(req, body, now.Add(time.Minute+2*time.Second)); !errors.Is(err, ErrStale) {
		t.Fatalf("replay after the window = %v, want ErrStale", err)
	}
}

// TestExamplesAcceptAnEVMLeader: an example tool that requires a 0x leader
// runs that leader's signed invocation, once, and refuses the others.
func TestExamplesAcceptAnEVMLeader(t *testing.T) {
	t.Parallel()
	for _, name := range ExampleNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl, err := Example(name)
			if err != nil {
				t.Fatal(err)
			}
			srv, vc := newTestServer(t, tl, RequireLeader([]string{evmLeaderAddr}))
			input := json.RawMessage(`{"text":"a b"}`)
			if name == "arith" {
				input = json.RawMessage(`{"op":"add","a":2,"b":3}`)
			}
			if _, err := Invoke(t.Context(), srv.URL, input, evmLeaderKey, vc.Now()); err != nil {
				t.Fatalf("the 0x leader's invocation: %v", err)
			}
			_, err = Invoke(t.Context(), srv.URL, input, evmLeaderKey, vc.Now()) // the same second: the same signature
			checkInvokeError(t, err, true, http.StatusUnauthorized, CodeReplayed)
			vc.Advance(time.Second)
			for _, k := range []chain.Key{evmStrangerKey, leaderKey} {
				_, err = Invoke(t.Context(), srv.URL, input, k, vc.Now())
				checkInvokeError(t, err, false, http.StatusForbidden, CodeUnknownLeader)
			}
			_, err = Invoke(t.Context(), srv.URL, input, nil, vc.Now())
			checkInvokeError(t, err, false, http.StatusUnauthorized, CodeUnsigned)
		})
	}
}

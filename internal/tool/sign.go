package tool

import (
	"bytes"
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// The headers of a signed invocation.
const (
	// HeaderLeader carries the signing leader's id: its chain address
	// (lowercase hex of an ed25519 public key, or a lowercase 0x EVM
	// address).
	HeaderLeader = "Ordo-Leader"
	// HeaderTimestamp carries the signing time in unix seconds.
	HeaderTimestamp = "Ordo-Timestamp"
	// HeaderSignature carries the lowercase hex signature of
	// SigningString in the leader's scheme: 64 bytes of ed25519, or 65
	// bytes [R||S||V] of secp256k1 over its EIP-191 personal message hash.
	HeaderSignature = "Ordo-Signature"
)

// SignatureDomain starts every signed string, so a signature made for an
// invocation means nothing anywhere else.
const SignatureDomain = "ordo-invoke-v1"

// DefaultWindow is how far a signed request's timestamp may be from the
// verifier's clock, either way.
const DefaultWindow = 5 * time.Minute

// The ways a signature is refused; Verify wraps one of them with the detail.
var (
	// ErrUnsigned: a signature header is missing.
	ErrUnsigned = errors.New("request is not signed")
	// ErrBadSignature: the headers are malformed, or the signature does not
	// verify over the request.
	ErrBadSignature = errors.New("bad signature")
	// ErrUnknownLeader: the signer is not an allowed leader.
	ErrUnknownLeader = errors.New("unknown leader")
	// ErrStale: the timestamp is outside the window around the verifier's
	// clock.
	ErrStale = errors.New("stale signature")
	// ErrReplayed: the same signature was accepted before, within the
	// window.
	ErrReplayed = errors.New("replayed request")
)

// SignedHeaders are the parsed signature headers of a request.
type SignedHeaders struct {
	// Leader is the signer's chain address.
	Leader chain.Address
	// Timestamp is the signing time in unix seconds.
	Timestamp int64
	// Signature is the 64-byte ed25519 signature, or the 65-byte
	// secp256k1 one of a 0x leader.
	Signature []byte
}

// SigningString is what a leader signs for a request with method, path
// (escaped), timestamp (unix seconds) and body.
func SigningString(method, path string, timestamp int64, body []byte) []byte {
	sum := sha256.Sum256(body)
	var b bytes.Buffer
	b.Grow(len(SignatureDomain) + len(method) + len(path) + 20 + 2*len(sum) + 4)
	b.WriteString(SignatureDomain)
	b.WriteByte('\n')
	b.WriteString(method)
	b.WriteByte('\n')
	b.WriteString(path)
	b.WriteByte('\n')
	b.WriteString(strconv.FormatInt(timestamp, 10))
	b.WriteByte('\n')
	b.WriteString(hex.EncodeToString(sum[:]))
	return b.Bytes()
}

// Sign sets the signature headers of req, signed by key at now. The key is
// the leader's account key: an ed25519.PrivateKey (devchain; the leader is
// its hex public key) or a secp256k1 *ecdsa.PrivateKey (an EVM chain; the
// leader is its 0x address). Another key is an error wrapping
// chain.ErrBadSignature. It reads the body through req.GetBody when set
// (http.NewRequest sets it for in-memory bodies), else reads req.Body and
// puts it back.
func Sign(req *http.Request, key chain.Key, now time.Time) error {
	sc, leader, err := keyScheme(key)
	if err != nil {
		return fmt.Errorf("tool: signing key: %w", err)
	}
	body, err := requestBody(req)
	if err != nil {
		return fmt.Errorf("tool: reading the body to sign: %w", err)
	}
	ts := now.Unix()
	sig, err := sc.sign(key, SigningString(req.Method, req.URL.EscapedPath(), ts, body))
	if err != nil {
		return fmt.Errorf("tool: signing: %w", err)
	}
	req.Header.Set(HeaderLeader, string(leader))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, hex.EncodeToString(sig))
	return nil
}

// requestBody returns req's body without consuming it.
func requestBody(req *http.Request) ([]byte, error) {
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		return nil, nil
	case req.GetBody != nil:
		rc, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		defer func() { _ = rc.Close() }()
		return io.ReadAll(rc)
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return b, nil
}

// maxTimestampDigits bounds Ordo-Timestamp: 19 digits hold any int64.
const maxTimestampDigits = 19

// ParseHeaders reads the signature headers of h. Any of the three missing
// is ErrUnsigned; one given twice, a leader that is not an address of a
// scheme (ValidLeader), a timestamp that is not unsigned decimal digits (at
// most 19, no sign, no leading zero) or a signature that is not lowercase
// hex of the scheme's length (64 bytes for ed25519, 65 for a 0x leader) is
// ErrBadSignature.
func ParseHeaders(h http.Header) (SignedHeaders, error) {
	var out SignedHeaders
	vals := [3][]string{h.Values(HeaderLeader), h.Values(HeaderTimestamp), h.Values(HeaderSignature)}
	names := [3]string{HeaderLeader, HeaderTimestamp, HeaderSignature}
	for i, v := range vals {
		if len(v) == 0 {
			return out, fmt.Errorf("%w: no %s header", ErrUnsigned, names[i])
		}
		if len(v) > 1 {
			return out, fmt.Errorf("%w: %s is given %d times", ErrBadSignature, names[i], len(v))
		}
	}
	leader, ts, sig := vals[0][0], vals[1][0], vals[2][0]
	sc, err := addressScheme(chain.Address(leader))
	if err != nil {
		return out, fmt.Errorf("%w: %s: %w", ErrBadSignature, HeaderLeader, err)
	}
	t, err := parseTimestamp(ts)
	if err != nil {
		return out, fmt.Errorf("%w: %s: %w", ErrBadSignature, HeaderTimestamp, err)
	}
	if len(sig) != 2*sc.sigLen || !isLowerHex(sig) {
		return out, fmt.Errorf("%w: %s must be %d lowercase hex characters for leader %s", ErrBadSignature, HeaderSignature, 2*sc.sigLen, leader)
	}
	raw, _ := hex.DecodeString(sig) // checked above
	return SignedHeaders{Leader: chain.Address(leader), Timestamp: t, Signature: raw}, nil
}

// parseTimestamp reads unsigned decimal unix seconds in canonical form, so
// that one time has one spelling.
func parseTimestamp(s string) (int64, error) {
	if s == "" || len(s) > maxTimestampDigits {
		return 0, fmt.Errorf("want 1 to %d decimal digits", maxTimestampDigits)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("want decimal digits only")
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, errors.New("leading zero")
	}
	return strconv.ParseInt(s, 10, 64)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Verify checks the signature of r, whose body is body (already read), at
// now: the headers are present and well formed, allowed accepts the leader
// (a nil allowed accepts any), the timestamp is within window of now (a
// window <= 0 means DefaultWindow) and the signature verifies over r's
// method, escaped path, timestamp and body: against the ed25519 public key
// that is the leader, or, for a 0x leader, recovering to exactly that
// address. It returns the parsed headers,
// or an error wrapping ErrUnsigned, ErrBadSignature, ErrUnknownLeader or
// ErrStale. It keeps no memory: a Verifier also refuses replays.
func Verify(r *http.Request, body []byte, allowed func(leader string) bool, now time.Time, window time.Duration) (SignedHeaders, error) {
	if window <= 0 {
		window = DefaultWindow
	}
	sh, err := ParseHeaders(r.Header)
	if err != nil {
		return sh, err
	}
	if allowed != nil && !allowed(string(sh.Leader)) {
		return sh, fmt.Errorf("%w: %s is not allowed to invoke this tool", ErrUnknownLeader, sh.Leader)
	}
	at := time.Unix(sh.Timestamp, 0)
	if d := now.Sub(at); d > window || d < -window {
		return sh, fmt.Errorf("%w: signed at %s, %s from this server's clock (the window is ±%s)", ErrStale, at.UTC().Format(time.RFC3339), d.Truncate(time.Second), window)
	}
	sc, _ := addressScheme(sh.Leader) // ParseHeaders checked it
	if !sc.verify(sh.Leader, SigningString(r.Method, r.URL.EscapedPath(), sh.Timestamp, body), sh.Signature) {
		return sh, fmt.Errorf("%w: the signature does not match the request's method, path, timestamp and body for leader %s", ErrBadSignature, sh.Leader)
	}
	return sh, nil
}

// Verifier verifies signatures and refuses a signature it has accepted
// before while its timestamp is within the window (both schemes' signatures
// are deterministic, so the same request signed in the same second is
// refused too: the leader signs again a second later; Verify takes one form
// of a secp256k1 signature only, so a changed V or S is no new one). It is safe for concurrent
// use. Make one with NewVerifier.
type Verifier struct {
	allowed func(string) bool
	window  time.Duration

	mu   sync.Mutex
	seen map[string]int64 // signature (raw bytes as a string) -> its timestamp
	exp  expiryHeap
}

// NewVerifier returns a Verifier that accepts the leaders allowed accepts
// (nil: any) within window of the time it is given (<= 0: DefaultWindow).
func NewVerifier(allowed func(leader string) bool, window time.Duration) *Verifier {
	if window <= 0 {
		window = DefaultWindow
	}
	return &Verifier{allowed: allowed, window: window, seen: map[string]int64{}}
}

// Verify is the package's Verify with the Verifier's leaders and window,
// then refuses a signature already accepted (ErrReplayed) and remembers
// this one until its timestamp leaves the window. Only signatures that
// verify are remembered, so a forger cannot fill the memory.
func (v *Verifier) Verify(r *http.Request, body []byte, now time.Time) (SignedHeaders, error) {
	sh, err := Verify(r, body, v.allowed, now, v.window)
	if err != nil {
		return sh, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.expire(now)
	key := string(sh.Signature)
	if _, dup := v.seen[key]; dup {
		return sh, fmt.Errorf("%w: this signed request (leader %s, timestamp %d) was accepted before", ErrReplayed, sh.Leader, sh.Timestamp)
	}
	v.seen[key] = sh.Timestamp
	heap.Push(&v.exp, expiry{ts: sh.Timestamp, key: key})
	return sh, nil
}

// Remembered returns how many signatures the Verifier holds.
func (v *Verifier) Remembered() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.seen)
}

// expire forgets the signatures whose timestamps are older than the window
// before now: a replay of one is refused as stale.
func (v *Verifier) expire(now time.Time) {
	cutoff := now.Add(-v.window).Unix()
	for v.exp.Len() > 0 && v.exp[0].ts < cutoff {
		e := heap.Pop(&v.exp).(expiry)
		delete(v.seen, e.key)
	}
}

// expiry is a remembered signature and its timestamp.
type expiry struct {
	ts  int64
	key string
}

// expiryHeap orders remembered signatures oldest timestamp first.
type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].ts < h[j].ts }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

package devchain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/chain"
)

// Library is the `library` contract: methods that fail on demand, to
// exercise the retries of whoever calls them (the processor, seed 002). It is
// a dev tool: anyone may configure any method.
//
// Transactions (args are JSON objects; unknown fields fail):
//   - configure {method, failTimes?, failProbability?, delayBlocks?,
//     failReason?}: sets how library method `method` behaves from this
//     transaction on, replacing its previous setting and restarting its
//     countdown; {method} alone makes it always succeed. failTimes is an
//     integer ≥ 0, failProbability a number from 0 to 1, delayBlocks an
//     integer ≥ 0, failReason a string of at most MaxLibraryReason bytes.
//   - confirm {executionId, success}: emits CallbackConfirmation
//     {executionId, success}: a callback confirmation carried by a chain
//     event (executionId is a string of 1-256 bytes, success a boolean).
//   - any other method m is a library method (args: any JSON, or none). At
//     height h, with m configured at height c, it fails, checking in this
//     order:
//     1. with ReasonNotReady while h < c + delayBlocks (this consumes
//     nothing);
//     2. with "library: <failReason>" (failReason defaults to
//     "configured failure") while its failTimes countdown is above zero,
//     and each such failure counts down by one;
//     3. with the same reason when failProbability > 0 and
//     LibraryDraw(txHash, m) < failProbability: the same transaction
//     always draws the same (in a multicall, txHash is the multicall's, so
//     two calls of m in one multicall draw alike).
//     Otherwise it succeeds: m's count of successful calls goes up by one
//     and it emits Called {method, args, count, from}.
//
// The countdown must change when the call fails, yet a failed transaction's
// writes are dropped: a failing call records its failure with
// Exec.SetAlways, which takes effect whether the transaction succeeds or
// not. The count of failures is kept per configuration (under the hash of
// the transaction that configured it), so that a configure inside a
// multicall that then fails, whose setting never takes effect, cannot
// charge its failures to the setting in force. Everything is a function of
// the transaction, its block height and the state: a block log replays to
// the same reasons, and a reorg undoes the countdown with the blocks.
//
// Reads (Call):
//   - count {method} → {"count": n}: m's successful calls.
//   - config {method} → a LibraryConfig: the setting in force and the
//     failures it has left.
type Library struct{}

// LibraryContract is the library contract's name.
const LibraryContract = "library"

// Library failure reasons.
const (
	// ReasonNotReady is the failure reason of a library method called
	// before its delayBlocks have passed.
	ReasonNotReady = "library: not_ready"
	// DefaultLibraryFailReason is a configured failure's reason when
	// configure gave no failReason.
	DefaultLibraryFailReason = "configured failure"
	// MaxLibraryReason is the longest failReason configure accepts, in bytes.
	MaxLibraryReason = 256
	// maxExecutionID is the longest executionId confirm accepts, in bytes.
	maxExecutionID = 256
)

// LibraryConfig is the answer of the library's config read: how a library
// method behaves now.
type LibraryConfig struct {
	// Method is the library method.
	Method string `json:"method"`
	// FailTimes is the number of failures configured; FailTimesLeft how
	// many of them are still to come.
	FailTimes     uint64 `json:"failTimes"`
	FailTimesLeft uint64 `json:"failTimesLeft"`
	// FailProbability is the probability, from 0 to 1, that a call fails
	// (drawn from the transaction's hash by LibraryDraw).
	FailProbability float64 `json:"failProbability"`
	// DelayBlocks is how many blocks after its configure the method fails
	// with ReasonNotReady; ReadyAt is the first height where it does not.
	DelayBlocks uint64 `json:"delayBlocks"`
	ReadyAt     uint64 `json:"readyAt"`
	// FailReason is the reason's text after "library: ".
	FailReason string `json:"failReason"`
	// ConfiguredAt is the height of the configure in force; 0 for a method
	// never configured.
	ConfiguredAt uint64 `json:"configuredAt"`
}

// libSetting is a method's setting as stored under cfg/<method>.
type libSetting struct {
	FailTimes       uint64  `json:"failTimes,omitempty"`
	FailProbability float64 `json:"failProbability,omitempty"`
	DelayBlocks     uint64  `json:"delayBlocks,omitempty"`
	FailReason      string  `json:"failReason,omitempty"`
	ConfiguredAt    uint64  `json:"configuredAt"`
	// Gen is the hash of the transaction that configured it: its failures
	// are counted under used/<method>/<gen>.
	Gen chain.Hash `json:"gen"`
}

func (s libSetting) readyAt() uint64 {
	if r := s.ConfiguredAt + s.DelayBlocks; r >= s.ConfiguredAt {
		return r
	}
	return math.MaxUint64
}

// Name returns "library".
func (Library) Name() string { return LibraryContract }

// LibraryDraw is the deterministic draw of a library method called by the
// transaction txHash, from 0 (included) to 1 (excluded): the first 8 bytes
// of SHA-256(txHash "|" method) as a big-endian fraction of 2^64 (its top 53
// bits). A call with failProbability p fails when the draw is below p.
func LibraryDraw(txHash chain.Hash, method string) float64 {
	sum := sha256.Sum256([]byte(string(txHash) + "|" + method))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

func libCfgKey(m string) string                { return "cfg/" + m }
func libCountKey(m string) string              { return "count/" + m }
func libUsedKey(m string, g chain.Hash) string { return "used/" + m + "/" + string(g) }

// libMethodName checks a library method name given in args.
func libMethodName(m string) error {
	if !chain.ValidName(m) || m == "configure" || m == "confirm" {
		return Fail("library: method must be 1-%d characters of [a-z0-9_-], other than configure and confirm", chain.MaxName)
	}
	return nil
}

// Apply executes configure, confirm or a library method.
func (Library) Apply(x *Exec, method string, args json.RawMessage) error {
	switch method {
	case "configure":
		return libConfigure(x, args)
	case "confirm":
		return libConfirm(x, args)
	}
	if err := libMethodName(method); err != nil {
		return err
	}
	s, err := libLoad(x, method)
	if err != nil {
		return err
	}
	if x.Height < s.readyAt() {
		return Fail(ReasonNotReady)
	}
	reason := s.FailReason
	if reason == "" {
		reason = DefaultLibraryFailReason
	}
	if s.FailTimes > 0 {
		used, err := libUint(x, libUsedKey(method, s.Gen))
		if err != nil {
			return err
		}
		if used < s.FailTimes {
			x.SetAlways(libUsedKey(method, s.Gen), []byte(strconv.FormatUint(used+1, 10)))
			return Fail("library: %s", reason)
		}
	}
	if s.FailProbability > 0 && LibraryDraw(x.TxHash, method) < s.FailProbability {
		return Fail("library: %s", reason)
	}
	n, err := libUint(x, libCountKey(method))
	if err != nil {
		return err
	}
	n++
	x.Set(libCountKey(method), []byte(strconv.FormatUint(n, 10)))
	if len(args) == 0 {
		args = json.RawMessage("null")
	}
	return x.Emit("Called", struct {
		Method string          `json:"method"`
		Args   json.RawMessage `json:"args"`
		Count  uint64          `json:"count"`
		From   chain.Address   `json:"from"`
	}{method, args, n, x.From})
}

func libConfigure(x *Exec, args json.RawMessage) error {
	f, err := decodeObject(args, "library: configure args", "method", "failTimes", "failProbability", "delayBlocks", "failReason")
	if err != nil {
		return err
	}
	m, err := libMethodArg(f)
	if err != nil {
		return err
	}
	s := libSetting{ConfiguredAt: x.Height, Gen: x.TxHash}
	if v, ok := f["failTimes"]; ok && json.Unmarshal(v, &s.FailTimes) != nil {
		return Fail("library: failTimes must be an integer from 0 to 2^64-1")
	}
	if v, ok := f["failProbability"]; ok {
		if json.Unmarshal(v, &s.FailProbability) != nil || !(s.FailProbability >= 0 && s.FailProbability <= 1) {
			return Fail("library: failProbability must be a number from 0 to 1")
		}
	}
	if v, ok := f["delayBlocks"]; ok && json.Unmarshal(v, &s.DelayBlocks) != nil {
		return Fail("library: delayBlocks must be an integer from 0 to 2^64-1")
	}
	if v, ok := f["failReason"]; ok {
		if json.Unmarshal(v, &s.FailReason) != nil || len(s.FailReason) > MaxLibraryReason || !utf8.ValidString(s.FailReason) {
			return Fail("library: failReason must be a string of at most %d bytes", MaxLibraryReason)
		}
	}
	old, err := libLoad(x, m)
	if err != nil {
		return err
	}
	if old.Gen != "" {
		x.Set(libUsedKey(m, old.Gen), nil) // the old countdown ends with its setting
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("library: setting: %w", err)
	}
	x.Set(libCfgKey(m), b)
	return nil
}

func libConfirm(x *Exec, args json.RawMessage) error {
	const want = "library: confirm needs {executionId: a string of 1-256 bytes, success: true or false}"
	f, err := decodeObject(args, "library: confirm args", "executionId", "success")
	if err != nil {
		return err
	}
	var id string
	var ok *bool
	if json.Unmarshal(f["executionId"], &id) != nil || id == "" || len(id) > maxExecutionID || json.Unmarshal(f["success"], &ok) != nil || ok == nil {
		return Fail(want)
	}
	return x.Emit("CallbackConfirmation", struct {
		ExecutionID string `json:"executionId"`
		Success     bool   `json:"success"`
	}{id, *ok})
}

// libMethodArg reads and checks the "method" field.
func libMethodArg(f map[string]json.RawMessage) (string, error) {
	var m string
	if v, ok := f["method"]; !ok || json.Unmarshal(v, &m) != nil {
		return "", Fail("library: method is required: a string")
	}
	return m, libMethodName(m)
}

// libLoad reads a method's setting; the zero setting when never configured.
func libLoad(r StateReader, m string) (libSetting, error) {
	var s libSetting
	raw, ok := r.Get(libCfgKey(m))
	if !ok {
		return s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("library: corrupt setting of %s: %w", m, err)
	}
	return s, nil
}

// libUint reads a counter; 0 when absent.
func libUint(r StateReader, key string) (uint64, error) {
	raw, ok := r.Get(key)
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("library: corrupt counter %s: %w", key, err)
	}
	return n, nil
}

// Call answers count {method} and config {method}.
func (Library) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	if method != "count" && method != "config" {
		return nil, errNoMethod
	}
	f, err := decodeObject(args, "library: "+method+" args", "method")
	if err != nil {
		return nil, err
	}
	m, err := libMethodArg(f)
	if err != nil {
		return nil, err
	}
	if method == "count" {
		n, err := libUint(r, libCountKey(m))
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]uint64{"count": n})
	}
	s, err := libLoad(r, m)
	if err != nil {
		return nil, err
	}
	c := LibraryConfig{Method: m, FailTimes: s.FailTimes, FailProbability: s.FailProbability, DelayBlocks: s.DelayBlocks,
		ReadyAt: s.readyAt(), FailReason: s.FailReason, ConfiguredAt: s.ConfiguredAt}
	if c.FailReason == "" {
		c.FailReason = DefaultLibraryFailReason
	}
	if s.FailTimes > 0 {
		used, err := libUint(r, libUsedKey(m, s.Gen))
		if err != nil {
			return nil, err
		}
		c.FailTimesLeft = s.FailTimes - min(used, s.FailTimes)
	}
	return json.Marshal(c)
}

// decodeObject decodes args as a JSON object whose keys are all among
// allowed (exactly, case included), and returns its fields. Its failures have
// stable reasons that name what, never encoding/json's text; an unknown
// field named is the first in byte order, not in the map's order.
func decodeObject(args json.RawMessage, what string, allowed ...string) (map[string]json.RawMessage, error) {
	var f map[string]json.RawMessage
	if json.Unmarshal(args, &f) != nil || f == nil { // null decodes to a nil map
		return nil, Fail("%s must be a JSON object", what)
	}
	var unknown []string
	for k := range f {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return nil, Fail("%s has an unknown field %q", what, slices.Min(unknown))
	}
	return f, nil
}

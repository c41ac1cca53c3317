package processor

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// goodBatch is a valid batch the table tests change one field of.
func goodBatch() BatchSpec {
	return BatchSpec{
		ID:       "b-1",
		Msgs:     []Msg{{Contract: "library", Method: "a", Args: json.RawMessage(`{"x":1}`)}, {Contract: "token", Method: "send"}},
		Priority: High,
		ActionsConfig: ActionsConfig{NonAtomic: &NonAtomicConfig{Actions: []Action{
			{RetryLogic: &RetryLogic{Times: RetryTimes{Amount: 2}, Interval: RetryInterval{Blocks: 3}}},
			{Contract: "token", CallbackConfirmation: &CallbackConfirmation{Contract: "oracle"}},
		}}},
	}
}

func TestBatchSpecValidate(t *testing.T) {
	atomic := func(s *BatchSpec) {
		s.ActionsConfig = ActionsConfig{Atomic: &AtomicConfig{Actions: []Action{{}, {}}, RetryLogic: &RetryLogic{Times: RetryTimes{Indefinitely: true}}}}
	}
	neg := -1
	tests := []struct {
		name  string
		edit  func(*BatchSpec)
		field string // "" when valid
	}{
		{"valid non-atomic", func(*BatchSpec) {}, ""},
		{"valid atomic", atomic, ""},
		{"assigned id", func(s *BatchSpec) { s.ID = "" }, ""},
		{"id of 64", func(s *BatchSpec) { s.ID = strings.Repeat("a", 64) }, ""},
		{"id of 65", func(s *BatchSpec) { s.ID = strings.Repeat("a", 65) }, "id"},
		{"id with a slash", func(s *BatchSpec) { s.ID = "a/b" }, "id"},
		{"id auto-", func(s *BatchSpec) { s.ID = "auto-1" }, "id"},
		{"priority low", func(s *BatchSpec) { s.Priority = "low" }, "priority"},
		{"priority empty", func(s *BatchSpec) { s.Priority = "" }, "priority"},
		{"no msgs", func(s *BatchSpec) { s.Msgs = nil }, "msgs"},
		{"too many msgs", func(s *BatchSpec) { s.Msgs = make([]Msg, MaxMsgs+1) }, "msgs"},
		{"bad contract", func(s *BatchSpec) { s.Msgs[1].Contract = "Token" }, "msgs[1].contract"},
		{"no method", func(s *BatchSpec) { s.Msgs[0].Method = "" }, "msgs[0].method"},
		{"args too big", func(s *BatchSpec) { s.Msgs[0].Args = json.RawMessage(`"` + strings.Repeat("x", MaxArgsBytes) + `"`) }, "msgs[0].args"},
		{"args not JSON", func(s *BatchSpec) { s.Msgs[0].Args = json.RawMessage(`{`) }, "msgs[0].args"},
		{"negative position", func(s *BatchSpec) { s.Position = &neg }, "position"},
		{"empty expiration", func(s *BatchSpec) { s.Expiration = &Expiration{} }, "expiration"},
		{"expiration by height", func(s *BatchSpec) { s.Expiration = &Expiration{Height: 9} }, ""},
		{"no actions config", func(s *BatchSpec) { s.ActionsConfig = ActionsConfig{} }, "actionsConfig"},
		{"both configs", func(s *BatchSpec) {
			s.ActionsConfig.Atomic = &AtomicConfig{Actions: []Action{{}, {}}}
		}, "actionsConfig"},
		{"one action short", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions = s.ActionsConfig.NonAtomic.Actions[:1]
		}, "actionsConfig.nonAtomic.actions"},
		{"action authorizes another contract", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[1].Contract = "library"
		}, "actionsConfig.nonAtomic.actions[1].contract"},
		{"negative amount", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[0].RetryLogic.Times.Amount = -1
		}, "actionsConfig.nonAtomic.actions[0].retryLogic.times.amount"},
		{"amount too big", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[0].RetryLogic.Times.Amount = MaxAmount + 1
		}, "actionsConfig.nonAtomic.actions[0].retryLogic.times.amount"},
		{"interval too long", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[0].RetryLogic.Interval = RetryInterval{Duration: MaxInterval + time.Second}
		}, "actionsConfig.nonAtomic.actions[0].retryLogic.interval.duration"},
		{"negative interval", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[0].RetryLogic.Interval = RetryInterval{Duration: -time.Second}
		}, "actionsConfig.nonAtomic.actions[0].retryLogic.interval.duration"},
		{"too many blocks", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[0].RetryLogic.Interval = RetryInterval{Blocks: MaxIntervalBlocks + 1}
		}, "actionsConfig.nonAtomic.actions[0].retryLogic.interval.blocks"},
		{"bad confirmation contract", func(s *BatchSpec) {
			s.ActionsConfig.NonAtomic.Actions[1].CallbackConfirmation.Contract = ""
		}, "actionsConfig.nonAtomic.actions[1].callbackConfirmation.contract"},
		{"atomic action with retry logic", func(s *BatchSpec) {
			atomic(s)
			s.ActionsConfig.Atomic.Actions[0].RetryLogic = &RetryLogic{}
		}, "actionsConfig.atomic.actions[0]"},
		{"atomic action with a confirmation", func(s *BatchSpec) {
			atomic(s)
			s.ActionsConfig.Atomic.Actions[1].CallbackConfirmation = &CallbackConfirmation{Contract: "oracle"}
		}, "actionsConfig.atomic.actions[1]"},
		{"atomic amount too big", func(s *BatchSpec) {
			atomic(s)
			s.ActionsConfig.Atomic.RetryLogic = &RetryLogic{Times: RetryTimes{Amount: MaxAmount + 1}}
		}, "actionsConfig.atomic.retryLogic.times.amount"},
		{"atomic actions short", func(s *BatchSpec) {
			atomic(s)
			s.ActionsConfig.Atomic.Actions = nil
		}, "actionsConfig.atomic.actions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := goodBatch()
			tc.edit(&s)
			err := s.Validate()
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && err == nil:
				t.Fatalf("accepted; want %s refused", tc.field)
			case tc.field != "" && err.Field != tc.field:
				t.Fatalf("refused %s (%v); want %s", err.Field, err, tc.field)
			case err != nil && !strings.HasPrefix(err.Error(), tc.field+": "):
				t.Fatalf("message %q does not start with the field", err.Error())
			}
		})
	}
}

func TestCreateSpecValidate(t *testing.T) {
	tests := []struct {
		name  string
		spec  CreateSpec
		field string
		auto  time.Duration
	}{
		{"minimal", CreateSpec{Name: "p", Owner: "alice"}, "", 0},
		{"full", CreateSpec{Name: "p_1-x", Owner: "alice", CallbackURL: "https://cb.example/x", AutoTick: "2s", Lanes: 4}, "", 2 * time.Second},
		{"no name", CreateSpec{Owner: "alice"}, "name", 0},
		{"upper-case name", CreateSpec{Name: "P", Owner: "alice"}, "name", 0},
		{"long name", CreateSpec{Name: strings.Repeat("p", 65), Owner: "alice"}, "name", 0},
		{"no owner", CreateSpec{Name: "p"}, "owner", 0},
		{"long owner", CreateSpec{Name: "p", Owner: strings.Repeat("o", 65)}, "owner", 0},
		{"ftp callback", CreateSpec{Name: "p", Owner: "alice", CallbackURL: "ftp://x"}, "callbackURL", 0},
		{"long callback", CreateSpec{Name: "p", Owner: "alice", CallbackURL: "http://" + strings.Repeat("x", 2048)}, "callbackURL", 0},
		{"negative lanes", CreateSpec{Name: "p", Owner: "alice", Lanes: -1}, "lanes", 0},
		{"too many lanes", CreateSpec{Name: "p", Owner: "alice", Lanes: MaxLanes + 1}, "lanes", 0},
		{"auto-tick not a duration", CreateSpec{Name: "p", Owner: "alice", AutoTick: "soon"}, "autoTick", 0},
		{"auto-tick too short", CreateSpec{Name: "p", Owner: "alice", AutoTick: "9ms"}, "autoTick", 0},
		{"auto-tick at its minimum", CreateSpec{Name: "p", Owner: "alice", AutoTick: "10ms"}, "", MinAutoTick},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.spec.Validate()
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (err == nil || err.Field != tc.field):
				t.Fatalf("got %v; want %s refused", err, tc.field)
			case err == nil && d != tc.auto:
				t.Fatalf("auto-tick %s, want %s", d, tc.auto)
			}
		})
	}
}

func TestRetryJSON(t *testing.T) {
	times := []struct {
		in   string
		want RetryTimes
		out  string // "" when refused
	}{
		{`"indefinitely"`, RetryTimes{Indefinitely: true}, `"indefinitely"`},
		{` "indefinitely" `, RetryTimes{Indefinitely: true}, `"indefinitely"`},
		{`{"amount":0}`, RetryTimes{}, `{"amount":0}`},
		{`{"amount": 7}`, RetryTimes{Amount: 7}, `{"amount":7}`},
		{`"Indefinitely"`, RetryTimes{}, ""},
		{`"forever"`, RetryTimes{}, ""},
		{`{}`, RetryTimes{}, ""},
		{`{"Amount":1}`, RetryTimes{}, ""},
		{`{"amount":1,"amount":2}`, RetryTimes{}, ""},
		{`{"amount":1,"x":2}`, RetryTimes{}, ""},
		{`{"amount":"1"}`, RetryTimes{}, ""},
		{`{"amount":1.5}`, RetryTimes{}, ""},
		{`3`, RetryTimes{}, ""},
		{`null`, RetryTimes{}, ""},
	}
	for _, tc := range times {
		var got RetryTimes
		err := json.Unmarshal([]byte(tc.in), &got)
		if tc.out == "" {
			if err == nil {
				t.Errorf("times %s: accepted as %+v", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("times %s: got %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if b, _ := json.Marshal(got); string(b) != tc.out {
			t.Errorf("times %s: encodes as %s, want %s", tc.in, b, tc.out)
		}
	}
	intervals := []struct {
		in   string
		want RetryInterval
		out  string
	}{
		{`{"blocks":3}`, RetryInterval{Blocks: 3}, `{"blocks":3}`},
		{`{"duration":"30s"}`, RetryInterval{Duration: 30 * time.Second}, `{"duration":"30s"}`},
		{`{"duration":"1m30s"}`, RetryInterval{Duration: 90 * time.Second}, `{"duration":"1m30s"}`},
		{`{"duration":"0s"}`, RetryInterval{}, `{"duration":"0s"}`},
		{`{"blocks":0}`, RetryInterval{}, `{"duration":"0s"}`}, // zero either way: no cooldown
		{`{}`, RetryInterval{}, ""},
		{`{"blocks":1,"duration":"1s"}`, RetryInterval{}, ""},
		{`{"Blocks":1}`, RetryInterval{}, ""},
		{`{"blocks":-1}`, RetryInterval{}, ""},
		{`{"duration":"soon"}`, RetryInterval{}, ""},
		{`{"duration":30}`, RetryInterval{}, ""},
		{`{"blocks":1,"blocks":2}`, RetryInterval{}, ""},
		{`"30s"`, RetryInterval{}, ""},
	}
	for _, tc := range intervals {
		var got RetryInterval
		err := json.Unmarshal([]byte(tc.in), &got)
		if tc.out == "" {
			if err == nil {
				t.Errorf("interval %s: accepted as %+v", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("interval %s: got %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if b, _ := json.Marshal(got); string(b) != tc.out {
			t.Errorf("interval %s: encodes as %s, want %s", tc.in, b, tc.out)
		}
	}
}

// fuzzBatches seeds FuzzDecodeBatch: good batches of each shape and bad
// ones of each kind.
var fuzzBatches = []string{
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}]}},"priority":"medium"}`,
	`{"id":"x.1:y-z","msgs":[{"contract":"library","method":"a","args":{"x":[1,2]}},{"contract":"token","method":"send","args":"s"}],"actionsConfig":{"atomic":{"actions":[{},{"contract":"token"}],"retryLogic":{"times":{"amount":2},"interval":{"blocks":3}}}},"priority":"high","expiration":{"height":10},"position":0}`,
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"nonAtomic":{"actions":[{"retryLogic":{"times":"indefinitely","interval":{"duration":"2s"}},"callbackConfirmation":{"contract":"oracle"}}]}},"priority":"high","expiration":{"time":"2026-01-01T00:00:00Z"}}`,
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}],"retryLogic":{"times":{"Amount":1},"interval":{"blocks":1}}}},"priority":"high"}`,
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}]}},"priority":"high","Priority":"medium"}`,
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}]}},"priority":"low"}`,
	`{"msgs":[],"actionsConfig":{"atomic":{"actions":[]}},"priority":"high"}`,
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}]},"nonAtomic":{"actions":[{}]}},"priority":"high"}`,
	`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}]}},"priority":"high","position":-1}`,
	`{"msgs":null}`, `[]`, `null`, `{`, ``, `{"msgs":[{"contract":"library","method":"a"}]} {}`,
}

// FuzzDecodeBatch: DecodeBatch never panics; what it accepts is valid and
// encodes to JSON that decodes to the same batch; what it refuses is
// ErrBadBatch or a *FieldError.
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range fuzzBatches {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeBatch(data)
		if err != nil {
			var fe *FieldError
			if !errors.Is(err, ErrBadBatch) && !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is neither ErrBadBatch nor a *FieldError", err, err)
			}
			return
		}
		if ferr := s.Validate(); ferr != nil {
			t.Fatalf("accepted an invalid batch: %v", ferr)
		}
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, err := DecodeBatch(enc)
		if err != nil {
			t.Fatalf("the re-encoded batch %s is refused: %v", enc, err)
		}
		if !reflect.DeepEqual(normBatch(s), normBatch(back)) {
			t.Fatalf("round trip changed the batch:\n%+v\n%+v", s, back)
		}
	})
}

// normBatch compacts a batch's raw args, the one place where equal batches
// may differ in bytes.
func normBatch(s BatchSpec) BatchSpec {
	s.Msgs = append([]Msg(nil), s.Msgs...)
	for i, m := range s.Msgs {
		if len(m.Args) > 0 {
			var v any
			if json.Unmarshal(m.Args, &v) == nil {
				b, _ := json.Marshal(v)
				s.Msgs[i].Args = b
			}
		}
	}
	return s
}

func TestDecodeBatchSeeds(t *testing.T) {
	accepted := 0
	for _, s := range fuzzBatches {
		if _, err := DecodeBatch([]byte(s)); err == nil {
			accepted++
		}
	}
	if accepted != 3 {
		t.Fatalf("%d seed batches accepted, want the first 3", accepted)
	}
}

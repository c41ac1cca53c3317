package leader

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestLeaderCoreScenarios runs the scenario scripts in testdata/scenarios:
// each script steps the core through the harness (core_harness_test.go: an
// in-memory store that commits every Ready with upsert semantics, checking
// CheckInvariants after every step, that a walk is held by one record, that
// no ended record comes back but a Dead one by an admin's retry) and prints
// what each step produced, checked against the file. After a change of
// behaviour, regenerate the files and read the diff:
//
//	go test ./internal/leader -run TestLeaderCoreScenarios -rewrite
//
// The command language (one command per directive; durations are Go's;
// every command but config starts the harness at t0):
//
//	config [channels=N] [capacity=N] [max-active=N] [max-retries=N]
//	       [retry-every=D] [sweep-after=D] [stale-after=D] [block-for=D]
//	       [check-every=D] [resubmit-after=D]
//	                      the core's configuration, before anything else;
//	                      channels (default 2) names accounts a0, a1, ...
//	events CURSOR         the listener read to CURSOR; each input line
//	                      "ID WALK [TOOL]" is a RequestWalkExecution event
//	                      (tool t by default); the harness marks Known the
//	                      walks the store holds, as the driver does.
//	executed ID ok [output=(JSON)] [attempt=N]
//	executed ID retriable|fatal [err=(TEXT)] [attempt=N]
//	executed ID gone [attempt=N]
//	                      answers the execution of event ID (attempt: the
//	                      outstanding one's, else 1).
//	reported ID [uid=U] [state=S] [err=(TEXT)]
//	reported ID refused=(TEXT) [permanent]
//	                      answers the result's submission: the sequencer
//	                      holds it as record U (default u<N>) in state S
//	                      (default WAITING; DONE and FAILED end it), or
//	                      refused it.
//	finished UID ok|fail [err=(TEXT)]
//	                      the sequencer record ended DONE or FAILED.
//	checked ID ours|theirs
//	                      answers the check of the walk's recorded result.
//	retry ID              an admin's retry of the store's record ID.
//	time +D [rand=N]      the clock moves on by D; N is the retrier's pick.
//	together              steps each input line (one of the commands above;
//	                      a line starting with a digit is an input line of
//	                      the command before it) in one turn: one Ready.
//	restart [KEY=VALUE...]
//	                      a crash between turns: the core and its unanswered
//	                      effects are lost; a new core starts from the store,
//	                      its configuration changed by config's keys given.
//	crash                 steps each input line in one turn, then crashes
//	                      before its Ready is committed, and restarts.
//	show                  the store's records, the core's run queue,
//	                      executions, waiting line and channels, the
//	                      unanswered effects and the next deadline.
//
// A step prints its Ready: under "batch:" the rows written, under
// "effects:" what the core asks for, under "replies:" the answers by request
// number. "(no change)" is an empty Ready. Times print as offsets from t0.
// An answer to an effect that is not outstanding is noted as stale.
func TestLeaderCoreScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios", func() func(*testing.T, *datadriven.TestData) string {
		return (&leaderScenario{}).run
	})
}

// leaderScenario is one script's world.
type leaderScenario struct {
	cfg  CoreConfig
	h    *leaderHarness
	uids int
}

func (s *leaderScenario) run(t *testing.T, d *datadriven.TestData) string {
	if s.h != nil {
		s.h.t = t
	}
	if d.Cmd == "config" {
		if s.h != nil {
			d.Fatalf(t, "config must come first")
		}
		return s.config(t, d)
	}
	if s.h == nil {
		if len(s.cfg.Accounts) == 0 {
			s.cfg.Accounts = []string{"a0", "a1"}
		}
		s.h = newLeaderHarness(t, s.cfg)
	}
	h := s.h
	switch d.Cmd {
	case "restart":
		if len(d.CmdArgs) > 0 {
			s.setConfig(t, d)
			h.cfg = s.cfg
		}
		lost, r := h.restart()
		return fmtLost(lost) + fmtReady(r)
	case "show":
		return h.fmtState()
	case "together", "crash":
		var ins []Input
		var notes strings.Builder
		for _, sub := range testkit.SubCommands(t, d) {
			ins = append(ins, s.input(t, sub, &notes))
		}
		if d.Cmd == "together" {
			return notes.String() + fmtReady(h.step(ins...))
		}
		r, lost, first := h.crash(ins...)
		notes.WriteString("not committed:\n" + testkit.Indent(fmtReady(r)))
		notes.WriteString(fmtLost(lost))
		return notes.String() + "after the restart:\n" + testkit.Indent(fmtReady(first))
	}
	var notes strings.Builder
	in := s.input(t, d, &notes)
	if d.Cmd == "time" {
		fmt.Fprintf(&notes, "now %s\n", fmtOff(h.now))
	}
	return notes.String() + fmtReady(h.step(in))
}

// fmtLost prints the effects a restart lost, one a line.
func fmtLost(lost []Effect) string { return testkit.Lines("lost: ", lost, fmtEffect) }

func (s *leaderScenario) config(t *testing.T, d *datadriven.TestData) string {
	s.setConfig(t, d)
	c := s.cfg.withDefaults()
	return fmt.Sprintf("channels=%d capacity=%d max-active=%d max-retries=%d retry-every=%s sweep-after=%s stale-after=%s block-for=%s check-every=%s resubmit-after=%s\n",
		len(c.Accounts), c.Capacity, c.MaxActive, c.MaxRetries, c.RetryEvery, c.SweepAfter, c.StaleAfter, c.BlockFor, c.CheckEvery, c.ResubmitAfter)
}

// setConfig sets the configuration keys d names.
func (s *leaderScenario) setConfig(t *testing.T, d *datadriven.TestData) {
	dur := func(key string, dst *time.Duration) { testkit.ScanDuration(t, d, key, dst) }
	n := len(s.cfg.Accounts)
	if n == 0 {
		n = 2
	}
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "channels":
			d.ScanArgs(t, a.Key, &n)
		case "capacity":
			d.ScanArgs(t, a.Key, &s.cfg.Capacity)
		case "max-active":
			d.ScanArgs(t, a.Key, &s.cfg.MaxActive)
		case "max-retries":
			d.ScanArgs(t, a.Key, &s.cfg.MaxRetries)
		case "retry-every":
			dur(a.Key, &s.cfg.RetryEvery)
		case "sweep-after":
			dur(a.Key, &s.cfg.SweepAfter)
		case "stale-after":
			dur(a.Key, &s.cfg.StaleAfter)
		case "block-for":
			dur(a.Key, &s.cfg.BlockFor)
		case "check-every":
			dur(a.Key, &s.cfg.CheckEvery)
		case "resubmit-after":
			dur(a.Key, &s.cfg.ResubmitAfter)
		default:
			d.Fatalf(t, "config: unknown key %q", a.Key)
		}
	}
	s.cfg.Accounts = nil
	for i := range n {
		s.cfg.Accounts = append(s.cfg.Accounts, "a"+strconv.Itoa(i))
	}
}

// input builds the input of one stepping command, writing notes (answers
// to effects that were not outstanding) to notes.
func (s *leaderScenario) input(t *testing.T, d *datadriven.TestData, notes *strings.Builder) Input {
	h := s.h
	switch d.Cmd {
	case "events":
		cur := testkit.PosUint64(t, d, 0, "events CURSOR")
		var reqs []Request
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(f) > 3 {
				d.Fatalf(t, "events: a request is ID WALK [TOOL], not %q", line)
			}
			id, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				d.Fatalf(t, "events: %v", err)
			}
			r := Request{ID: id, Walk: f[1], Tool: "t", Digest: fmt.Sprintf("0x%02x", id), Height: uint64(id),
				JSON: json.RawMessage(fmt.Sprintf(`{"walk":%q}`, f[1])), Known: h.st.known(f[1])}
			if len(f) == 3 {
				r.Tool = f[2]
			}
			reqs = append(reqs, r)
		}
		return Events(h.now, cur, reqs)
	case "executed":
		const usage = "executed ID ok|retriable|fatal|gone [output=(JSON)] [err=(TEXT)] [attempt=N]"
		id := testkit.PosInt64(t, d, 0, usage)
		o := Outcome(testkit.Pos(t, d, 1, usage))
		switch o {
		case OutcomeOK, OutcomeRetriable, OutcomeFatal, OutcomeGone:
		default:
			d.Fatalf(t, "usage: %s", usage)
		}
		attempt := 1
		e, ok := h.take(EffectExecute, id)
		if ok {
			attempt = e.Attempt
		} else {
			fmt.Fprintf(notes, "(no execution of %d outstanding: a stale answer)\n", id)
		}
		d.MaybeScanArgs(t, "attempt", &attempt)
		var out json.RawMessage
		if o == OutcomeOK {
			out = json.RawMessage(testkit.Arg(d, "output", `{"n":1}`))
		}
		return Executed(h.now, id, attempt, o, out, testkit.Arg(d, "err", ""))
	case "reported":
		const usage = "reported ID [uid=U] [state=S] [err=(TEXT)] | refused=(TEXT) [permanent]"
		id := testkit.PosInt64(t, d, 0, usage)
		if _, ok := h.take(EffectReport, id); !ok {
			fmt.Fprintf(notes, "(no report of %d outstanding: a stale answer)\n", id)
		}
		if d.HasArg("refused") {
			return ReportFailed(h.now, id, testkit.Arg(d, "refused", ""), d.HasArg("permanent"))
		}
		uid := testkit.Arg(d, "uid", "")
		if uid == "" {
			s.uids++
			uid = "u" + strconv.Itoa(s.uids)
		}
		return Reported(h.now, id, uid, store.TxState(testkit.Arg(d, "state", string(store.Waiting))), testkit.Arg(d, "err", ""))
	case "finished":
		const usage = "finished UID ok|fail [err=(TEXT)]"
		return Finished(h.now, testkit.Pos(t, d, 0, usage), testkit.OkFail(t, d, 1, usage), testkit.Arg(d, "err", ""))
	case "checked":
		const usage = "checked ID ours|theirs"
		id := testkit.PosInt64(t, d, 0, usage)
		if _, ok := h.take(EffectCheck, id); !ok {
			fmt.Fprintf(notes, "(no check of %d outstanding: a stale answer)\n", id)
		}
		var ours bool
		switch testkit.Pos(t, d, 1, usage) {
		case "ours":
			ours = true
		case "theirs":
		default:
			d.Fatalf(t, "usage: %s", usage)
		}
		return Checked(h.now, id, ours)
	case "retry":
		id := testkit.PosInt64(t, d, 0, "retry ID")
		rec, ok := h.st.events[id]
		if !ok {
			rec = store.LeaderEvent{ID: id}
		}
		return Retry(h.now, h.nextReq(), rec)
	case "time":
		dv := testkit.PosDuration(t, d, 0, "time +D [rand=N]")
		var r uint64
		d.MaybeScanArgs(t, "rand", &r)
		h.now = h.now.Add(dv)
		return Time(h.now, r)
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return Input{}
}

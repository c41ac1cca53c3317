package processor

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

// TestCoreScenarios runs the scenario scripts in testdata/scenarios: each
// script steps the core through the harness (core_harness_test.go: an
// in-memory store that commits every Ready with upsert semantics, checking
// CheckInvariants, that no ended batch comes back and that no outcome has
// two callback keys) and prints what each step produced, checked against
// the file. After a change of behaviour, regenerate the files and read the
// diff:
//
//	go test ./internal/processor -run TestCoreScenarios -rewrite
//
// The command language (one command per directive; durations are Go's;
// callers default to the owner alice, or admin for create, and any command
// takes the argument admin, which marks its caller an admin; every command
// but config starts the harness at t0, head 1):
//
//	config [check-every=D] [resubmit-after=D] [max-deliveries=N]
//	       [backoff-min=D] [backoff-max=D] [max-queued=N]
//	                      the core's configuration, before anything else.
//	create NAME [owner=O] [url=URL] [auto-tick=D] [lanes=N] [by=C]
//	add PROC [id=ID] [ids=(ID,...)] [prio=P] [pos=N] [used] [by=C]
//	                      adds the batch whose JSON is the input (none: the
//	                      last add's), its id, priority and position
//	                      overridden when given; ids adds one per id; used
//	                      says the store holds the id (Input.Used; the
//	                      harness also sets it when the store does).
//	tick PROC             a tick (anyone's).
//	submitted EXEC [uid=U] [state=S] [err=(TEXT)]
//	submitted EXEC refused=(TEXT) [permanent]
//	                      answers the execution's submit: the sequencer holds
//	                      it as record U (default u<N>) in state S (default
//	                      REVISION; DONE and FAILED end it), or refused it.
//	finished UID ok|fail [err=(TEXT)]
//	                      the sequencer record ended DONE or FAILED.
//	head N                the chain's head is at N.
//	time +D               the clock moves on by D.
//	confirm PROC EXEC ok|fail [by=C]
//	                      an owner's callback confirmation.
//	events CURSOR         the chain-event listener read to CURSOR; each input
//	                      line "CONTRACT EXEC ok|fail" is a confirmation event.
//	delivered PROC SEQ ok|fail [err=(TEXT)]
//	                      answers the delivery of callback SEQ.
//	pause PROC [by=C], resume PROC [by=C]
//	remove PROC PRIORITY POS [by=C]
//	together              steps each input line (one of the commands above)
//	                      in one turn: one Ready for all.
//	restart               a crash: the core and its unanswered effects are
//	                      lost; a new core starts from the store's snapshot.
//	crash                 steps each input line in one turn, then crashes
//	                      before its Ready is committed (a kill in the middle
//	                      of a tick or a delivery's answer), and restarts.
//	queues [PROC]         the core's queues, executions, pending map and
//	                      callbacks, the unanswered effects and the next
//	                      deadline.
//
// A step prints its Ready: under "batch:" the rows written, under
// "effects:" what the core asks for, under "replies:" the answers by request
// number. "(no change)" is an empty Ready. Times print as offsets from t0.
func TestCoreScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios", func() func(*testing.T, *datadriven.TestData) string {
		return (&procScenario{}).run
	})
}

// procScenario is one script's world.
type procScenario struct {
	cfg  CoreConfig
	h    *procHarness
	last json.RawMessage // the last add's batch
	uids int
}

func (s *procScenario) run(t *testing.T, d *datadriven.TestData) string {
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
		s.h = newProcHarness(t, s.cfg)
	}
	h := s.h
	switch d.Cmd {
	case "restart":
		lost, r := h.restart()
		return fmtLost(lost) + fmtReady(r)
	case "queues":
		only := ""
		if len(d.CmdArgs) > 0 {
			only = d.CmdArgs[0].Key
		}
		return h.fmtQueues(only)
	case "together", "crash":
		var ins []Input
		var notes strings.Builder
		for _, sub := range testkit.SubCommands(t, d) {
			ins = append(ins, s.inputs(t, sub, &notes)...)
		}
		if d.Cmd == "together" {
			return notes.String() + fmtReady(h.step(ins...))
		}
		for _, in := range ins {
			h.c.Step(in)
		}
		notes.WriteString("not committed:\n" + testkit.Indent(fmtReady(h.c.Ready())))
		lost, r := h.restart()
		notes.WriteString(fmtLost(lost))
		return notes.String() + "after the restart:\n" + testkit.Indent(fmtReady(r))
	}
	var notes strings.Builder
	ins := s.inputs(t, d, &notes)
	if d.Cmd == "time" {
		fmt.Fprintf(&notes, "now %s\n", fmtOff(h.now))
	}
	return notes.String() + fmtReady(h.step(ins...))
}

func (s *procScenario) config(t *testing.T, d *datadriven.TestData) string {
	dur := func(key string, dst *time.Duration) { testkit.ScanDuration(t, d, key, dst) }
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "check-every":
			dur(a.Key, &s.cfg.CheckEvery)
		case "resubmit-after":
			dur(a.Key, &s.cfg.ResubmitAfter)
		case "backoff-min":
			dur(a.Key, &s.cfg.BackoffMin)
		case "backoff-max":
			dur(a.Key, &s.cfg.BackoffMax)
		case "max-deliveries":
			d.ScanArgs(t, a.Key, &s.cfg.MaxDeliveries)
		case "max-queued":
			d.ScanArgs(t, a.Key, &s.cfg.MaxQueued)
		default:
			d.Fatalf(t, "config: unknown key %q", a.Key)
		}
	}
	c := s.cfg.withDefaults()
	return fmt.Sprintf("check-every=%s resubmit-after=%s max-deliveries=%d backoff=%s..%s max-queued=%d\n",
		c.CheckEvery, c.ResubmitAfter, c.MaxDeliveries, c.BackoffMin, c.BackoffMax, c.MaxQueued)
}

// fmtLost prints the effects a restart lost, one a line.
func fmtLost(lost []Effect) string { return testkit.Lines("lost: ", lost, fmtEffect) }

// inputs builds the inputs of one stepping command, writing notes (effects
// answered that were not outstanding) to notes. The argument admin marks
// the caller an admin (Input.Admin).
func (s *procScenario) inputs(t *testing.T, d *datadriven.TestData, notes *strings.Builder) []Input {
	ins := s.inputsOf(t, d, notes)
	if d.HasArg("admin") {
		for i := range ins {
			ins[i].Admin = true
		}
	}
	return ins
}

func (s *procScenario) inputsOf(t *testing.T, d *datadriven.TestData, notes *strings.Builder) []Input {
	h := s.h
	switch d.Cmd {
	case "create":
		const usage = "create NAME [owner=O] [url=URL] [auto-tick=D] [lanes=N] [by=C]"
		cs := CreateSpec{Name: testkit.Pos(t, d, 0, usage), Owner: testkit.Arg(d, "owner", "alice"), CallbackURL: testkit.Arg(d, "url", ""), AutoTick: testkit.Arg(d, "auto-tick", "")}
		d.MaybeScanArgs(t, "lanes", &cs.Lanes)
		return []Input{Create(h.now, h.nextReq(), testkit.Arg(d, "by", "admin"), cs)}
	case "add":
		return s.adds(t, d)
	case "tick":
		return []Input{Tick(h.now, h.nextReq(), testkit.Pos(t, d, 0, "tick PROC"))}
	case "submitted":
		exec := testkit.Pos(t, d, 0, "submitted EXEC [uid=U] [state=S] [err=(TEXT)] | refused=(TEXT) [permanent]")
		if _, ok := h.takeSubmit(exec); !ok {
			notes.WriteString("(no submit of " + exec + " outstanding: a stale answer)\n")
		}
		if d.HasArg("refused") {
			return []Input{SubmitFailed(h.now, exec, testkit.Arg(d, "refused", ""), d.HasArg("permanent"))}
		}
		uid := testkit.Arg(d, "uid", "")
		if uid == "" {
			s.uids++
			uid = "u" + strconv.Itoa(s.uids)
		}
		return []Input{Submitted(h.now, exec, uid, store.TxState(testkit.Arg(d, "state", string(store.Revision))), testkit.Arg(d, "err", ""))}
	case "finished":
		const usage = "finished UID ok|fail [err=(TEXT)]"
		return []Input{Finished(h.now, testkit.Pos(t, d, 0, usage), testkit.OkFail(t, d, 1, usage), testkit.Arg(d, "err", ""))}
	case "head":
		n := testkit.PosUint64(t, d, 0, "head N")
		h.head = max(h.head, n)
		return []Input{Head(h.now, n)}
	case "time":
		dv := testkit.PosDuration(t, d, 0, "time +D")
		h.now = h.now.Add(dv)
		return []Input{Time(h.now)}
	case "confirm":
		const usage = "confirm PROC EXEC ok|fail [by=C]"
		return []Input{ConfirmBy(h.now, h.nextReq(), testkit.Arg(d, "by", "alice"), testkit.Pos(t, d, 0, usage), testkit.Pos(t, d, 1, usage), testkit.OkFail(t, d, 2, usage))}
	case "events":
		cur := testkit.PosUint64(t, d, 0, "events CURSOR")
		var cfs []Confirm
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			if line == "" {
				continue
			}
			f := strings.Fields(line)
			if len(f) != 3 || (f[2] != "ok" && f[2] != "fail") {
				d.Fatalf(t, "events: a confirmation is CONTRACT EXEC ok|fail, not %q", line)
			}
			cfs = append(cfs, Confirm{Contract: f[0], Exec: f[1], Success: f[2] == "ok"})
		}
		return []Input{Events(h.now, cur, cfs)}
	case "delivered":
		const usage = "delivered PROC SEQ ok|fail [err=(TEXT)]"
		proc := testkit.Pos(t, d, 0, usage)
		seq, err := strconv.ParseInt(testkit.Pos(t, d, 1, usage), 10, 64)
		if err != nil {
			d.Fatalf(t, "delivered: %v", err)
		}
		if _, ok := h.takeDeliver(proc, seq); !ok {
			fmt.Fprintf(notes, "(no delivery of %s/%d outstanding: a stale answer)\n", proc, seq)
		}
		return []Input{Delivered(h.now, proc, seq, testkit.OkFail(t, d, 2, usage), testkit.Arg(d, "err", ""))}
	case "pause", "resume":
		return []Input{Pause(h.now, h.nextReq(), testkit.Arg(d, "by", "alice"), testkit.Pos(t, d, 0, d.Cmd+" PROC [by=C]"), d.Cmd == "resume")}
	case "remove":
		const usage = "remove PROC PRIORITY POS [by=C]"
		n, err := strconv.Atoi(testkit.Pos(t, d, 2, usage))
		if err != nil {
			d.Fatalf(t, "remove: %v", err)
		}
		return []Input{Remove(h.now, h.nextReq(), testkit.Arg(d, "by", "alice"), testkit.Pos(t, d, 0, usage), Priority(testkit.Pos(t, d, 1, usage)), n)}
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return nil
}

// adds builds the Add inputs of an add command.
func (s *procScenario) adds(t *testing.T, d *datadriven.TestData) []Input {
	h := s.h
	proc := testkit.Pos(t, d, 0, "add PROC [id=ID] [ids=(ID,...)] [prio=P] [pos=N] [used] [by=C]")
	if in := strings.TrimSpace(d.Input); in != "" {
		s.last = json.RawMessage(in)
	}
	if s.last == nil {
		d.Fatalf(t, "add: no batch given and none before")
	}
	ids := []string{""}
	if a, ok := d.Arg("ids"); ok {
		ids = a.Vals
	} else if a, ok := d.Arg("id"); ok {
		ids = []string{a.SingleVal(t)}
	}
	var ins []Input
	for _, id := range ids {
		var spec BatchSpec
		if err := json.Unmarshal(s.last, &spec); err != nil {
			d.Fatalf(t, "add: the batch: %v", err)
		}
		if id != "" {
			spec.ID = id
		}
		if p := testkit.Arg(d, "prio", ""); p != "" {
			spec.Priority = Priority(p)
		}
		if d.HasArg("pos") {
			var n int
			d.ScanArgs(t, "pos", &n)
			spec.Position = &n
		}
		used := d.HasArg("used") || spec.ID != "" && h.st.used(proc, spec.ID)
		ins = append(ins, Add(h.now, h.nextReq(), testkit.Arg(d, "by", "alice"), proc, spec, used))
	}
	return ins
}

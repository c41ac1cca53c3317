package smm

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/replog"
)

// The core scenarios' parsing of queue states and printing of a Ready
// (core_scenario_test.go documents the forms).

// parseOffset reads "+D" (or "D") as t0 plus D.
func parseOffset(t *testing.T, d *datadriven.TestData, v string) time.Time {
	dv, err := time.ParseDuration(strings.TrimPrefix(v, "+"))
	if err != nil {
		d.Fatalf(t, "%q: %v", v, err)
	}
	return clock.Epoch.Add(dv)
}

// listArg is an argument's values, each split at commas ("k=a,b").
func listArg(a datadriven.CmdArg) []string {
	var out []string
	for _, v := range a.Vals {
		for x := range strings.SplitSeq(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
	}
	return out
}

// forkHash is the hash of the entry at clock on the history named fork.
func forkHash(fork string, clk uint64) replog.Hash {
	if clk == 0 {
		return replog.Hash{}
	}
	return sha256.Sum256(fmt.Appendf(nil, "%s/%d", fork, clk))
}

// parseStates reads d's input lines as queue states.
func parseStates(t *testing.T, d *datadriven.TestData) []QueueState {
	var out []QueueState
	for line := range strings.SplitSeq(strings.TrimSpace(d.Input), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		out = append(out, parseState(t, d, line))
	}
	return out
}

// parseState reads "QUEUE vN PRIMARY [SECONDARY...] : MEMBER...".
func parseState(t *testing.T, d *datadriven.TestData, line string) QueueState {
	set, members, _ := strings.Cut(line, ":")
	f := strings.Fields(set)
	if len(f) < 3 || !strings.HasPrefix(f[1], "v") {
		d.Fatalf(t, "a state is QUEUE vN PRIMARY [SECONDARY...] : MEMBER..., not %q", line)
	}
	v, err := strconv.ParseUint(f[1][1:], 10, 64)
	if err != nil {
		d.Fatalf(t, "%q: %v", line, err)
	}
	st := QueueState{Set: ReplicaSet{Queue: f[0], Version: v, Primary: f[2], Secondaries: f[3:]}, Members: map[string]Member{}}
	for _, m := range strings.Fields(members) {
		node, spec, ok := strings.Cut(m, "=")
		if !ok {
			d.Fatalf(t, "a member is NODE=CLOCK... or NODE=-, not %q", m)
		}
		st.Members[node] = parseMember(t, d, node, spec, v)
	}
	return st
}

// parseMember reads CLOCK[#FORK][^ENTRYVERSION][@HELDVERSION][!+D] or
// -[!+D].
func parseMember(t *testing.T, d *datadriven.TestData, node, spec string, setVersion uint64) Member {
	m := Member{Node: node, Version: setVersion}
	if head, since, ok := strings.Cut(spec, "!"); ok {
		m.UnhealthySince = parseOffset(t, d, since)
		spec = head
	}
	if spec == "-" {
		m.Version = 0
		return m
	}
	m.Reached = true
	num := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			d.Fatalf(t, "member %s: %q: %v", node, spec, err)
		}
		return v
	}
	if rest, held, ok := strings.Cut(spec, "@"); ok {
		m.Version, spec = num(held), rest
	}
	entryVersion := uint64(1)
	if rest, ev, ok := strings.Cut(spec, "^"); ok {
		entryVersion, spec = num(ev), rest
	}
	fork := ""
	if rest, fk, ok := strings.Cut(spec, "#"); ok {
		fork, spec = fk, rest
	}
	m.Head = replog.Head{Clock: num(spec), Hash: forkHash(fork, num(spec))}
	if m.Head.Clock > 0 {
		m.Head.Version = entryVersion
	}
	return m
}

// fmtCoreReady prints a Ready (off prints times).
func fmtCoreReady(rd Ready, off func(time.Time) string) string {
	var b strings.Builder
	if len(rd.Effects) > 0 {
		b.WriteString("effects:\n")
	}
	for _, e := range rd.Effects {
		switch e.Kind {
		case EffectLost:
			fmt.Fprintf(&b, "  lost %s\n", e.Node)
		case EffectInsert:
			j := e.Job
			fmt.Fprintf(&b, "  insert %s lane=%s", j.Kind, laneName(j.Lane))
			if j.Unique != "" {
				fmt.Fprintf(&b, " unique=%s", j.Unique)
			}
			at := "now"
			if !j.At.IsZero() {
				at = off(j.At)
			}
			fmt.Fprintf(&b, " at=%s args=%s\n", at, j.Args)
		default:
			fmt.Fprintf(&b, "  %v\n", e.Kind)
		}
	}
	r := rd.Reply
	if len(r.Syncs) > 0 {
		b.WriteString("syncs:\n")
	}
	for _, qs := range r.Syncs {
		fmt.Fprintf(&b, "  %s", qs.Queue)
		if qs.Ahead {
			b.WriteString(" ahead")
		}
		if len(qs.Requests) == 0 {
			b.WriteString(" (none)")
		}
		for _, req := range qs.Requests {
			fmt.Fprintf(&b, " %s:%s->%d", req.Secondary, req.Reason, req.Target.Clock)
		}
		b.WriteString("\n")
	}
	p := r.Plans
	if len(p.Failovers)+len(p.Others)+len(p.Refused) > 0 || p.Unsettled > 0 {
		b.WriteString("plans:\n")
	}
	for _, u := range p.Failovers {
		fmt.Fprintf(&b, "  failover %s\n", fmtUpdate(u))
	}
	for _, u := range p.Others {
		fmt.Fprintf(&b, "  other %s\n", fmtUpdate(u))
	}
	if p.Unsettled > 0 {
		fmt.Fprintf(&b, "  unsettled %d\n", p.Unsettled)
	}
	for _, f := range p.Refused {
		fmt.Fprintf(&b, "  refused %s bad=[%s]: %s\n", f.Queue, strings.Join(f.Unhealthy, " "), f.Reason)
	}
	if r.Proceed {
		fmt.Fprintf(&b, "proceed replaceable=[%s]\n", strings.Join(r.Replaceable, " "))
	}
	if b.Len() == 0 {
		return "(no change)\n"
	}
	return b.String()
}

// fmtUpdate prints "QUEUE vN P[S...] -> P[S...] bad=[...]".
func fmtUpdate(u SetUpdate) string {
	return fmt.Sprintf("%s v%d %s -> %s bad=[%s]", u.Old.Queue, u.Old.Version, fmtSet(u.Old), fmtSet(u.Next), strings.Join(u.Bad, " "))
}

// fmtSet prints a set's members: "P[S S]".
func fmtSet(s ReplicaSet) string { return s.Primary + "[" + strings.Join(s.Secondaries, " ") + "]" }

// laneName is a lane as the scripts print it.
func laneName(l Lane) string {
	return strings.ToLower(strings.Join(splitCamel(strings.TrimPrefix(l.String(), "Lane")), "-"))
}

// splitCamel splits "ReplicaSetUpdate" into its words.
func splitCamel(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

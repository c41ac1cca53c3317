package crash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

func chainAddress(s string) chain.Address { return chain.Address(s) }

// auditChain is what the audit reads of the chain: a *devchain.Client, or in
// the audit's self-test a view of one that shows a double apply devchain
// itself refuses (its memo nullifier): the audit stays the independent
// check, for chains without one.
type auditChain interface {
	Head(ctx context.Context) (chain.BlockHeader, error)
	Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error)
	Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error)
}

// chainTx is a zkapp transaction as included on the chain.
type chainTx struct {
	height uint64
	index  int
	hash   string
	from   string
	nonce  uint64
	fee    uint64
	status string
	reason string
	memo   string
	method string
	zkapp  string
	value  json.RawMessage
}

func (c chainTx) String() string {
	s := fmt.Sprintf("tx %s at %d/%d %s %s(zkapp=%s) from=%s nonce=%d fee=%d", short(c.hash), c.height, c.index, c.status, c.method, c.zkapp, short(c.from), c.nonce, c.fee)
	if c.reason != "" {
		s += " reason=" + c.reason
	}
	return s
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// readChain reads every block from genesis to the head.
func readChain(ctx context.Context, dc auditChain) (blocks uint64, txs []chainTx, err error) {
	hd, err := dc.Head(ctx)
	if err != nil {
		return 0, nil, err
	}
	next := uint64(0)
	for next <= hd.Height {
		bs, err := dc.Blocks(ctx, next, min(next+devchain.MaxBlocksPerRequest-1, hd.Height))
		if err != nil {
			return 0, nil, err
		}
		if len(bs) == 0 {
			return 0, nil, fmt.Errorf("GET /v1/blocks?from=%d: no blocks below head %d", next, hd.Height)
		}
		for _, b := range bs {
			if b.Height != next {
				return 0, nil, fmt.Errorf("GET /v1/blocks: got height %d, want %d", b.Height, next)
			}
			next++
			for _, t := range b.Txs {
				c := chainTx{height: b.Height, index: t.Index, hash: string(t.Hash), from: string(t.From), nonce: t.Nonce, fee: t.Fee,
					status: t.Status, reason: t.Reason, memo: t.Memo, method: t.Method}
				if t.Contract != "zkapp" {
					continue
				}
				var args struct {
					ZkApp string          `json:"zkapp"`
					Value json.RawMessage `json:"value"`
				}
				if err := json.Unmarshal(t.Args, &args); err != nil {
					return 0, nil, fmt.Errorf("block %d tx %d: args %s: %w", b.Height, t.Index, t.Args, err)
				}
				c.zkapp, c.value = args.ZkApp, args.Value
				txs = append(txs, c)
			}
		}
	}
	sort.Slice(txs, func(i, j int) bool {
		if txs[i].height != txs[j].height {
			return txs[i].height < txs[j].height
		}
		return txs[i].index < txs[j].index
	})
	return hd.Height + 1, txs, nil
}

type auditResult struct {
	done, failed         int
	blocks               uint64
	succeeded            int
	chainFailed          int
	doubleApplied        int
	unknownUIDs          int
	fifoViolations       int
	slotViolations       int
	missing, failedLand  int
	mismatched, strayTxs int

	// Every included transaction, succeeded or failed, per zkApp per block.
	// sharedSlots counts the (block, zkApp) pairs holding more than one
	// transaction, maxPerSlot the most any pair holds.
	sharedSlots, maxPerSlot int
	// queueSlotViolations counts the blocks holding two or more
	// transactions of one queue's records; preconditions the records'
	// transactions that failed with reason "precondition".
	queueSlotViolations, preconditions int
	// failReasons counts the failed chain transactions by reason.
	failReasons map[string]int
}

// reasons renders the failed chain transactions' reasons, most frequent
// first.
func (a auditResult) reasons() string {
	type rc struct {
		reason string
		n      int
	}
	var rs []rc
	for r, n := range a.failReasons {
		rs = append(rs, rc{r, n})
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].n != rs[j].n {
			return rs[i].n > rs[j].n
		}
		return rs[i].reason < rs[j].reason
	})
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s=%d", r.reason, r.n))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// audit checks the chain against the acknowledged intents and their final
// records, and returns the figures and every violation found. cl (may be nil)
// is asked about uids the chain carries that no client was acknowledged.
func audit(ctx context.Context, dc auditChain, cl *client.Client, all []*intent, records map[string]record) (auditResult, []string, error) {
	var a auditResult
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	blocks, txs, err := readChain(ctx, dc)
	if err != nil {
		return a, nil, fmt.Errorf("reading the chain: %w", err)
	}
	a.blocks = blocks
	a.failReasons = map[string]int{}
	byUID := make(map[string]*intent, len(all))
	for _, in := range all {
		byUID[in.uid] = in
	}
	onChain := map[string][]chainTx{} // memo → every inclusion
	succeededBy := map[string][]chainTx{}
	for _, c := range txs {
		onChain[c.memo] = append(onChain[c.memo], c)
		if c.status == chain.OutcomeSucceeded {
			a.succeeded++
			succeededBy[c.memo] = append(succeededBy[c.memo], c)
		} else {
			a.chainFailed++
			a.failReasons[c.reason]++
		}
	}
	report := func(in *intent, format string, args ...any) {
		errorf("%s\n%s", fmt.Sprintf(format, args...), explain(in, records[in.uid], onChain[in.uid]))
	}

	// Every acknowledged intent against the chain.
	for _, in := range all {
		r, ok := records[in.uid]
		if !ok {
			errorf("no record read for %s (%s)", in.uid, in.key)
			continue
		}
		succ := succeededBy[in.uid]
		switch r.tx.State {
		case client.StateDone:
			a.done++
			switch {
			case len(succ) == 0:
				a.missing++
				report(in, "LOST: %s is DONE but no succeeded chain transaction carries its uid", in.uid)
			case len(succ) > 1:
				a.doubleApplied++
				report(in, "DOUBLE APPLY: %s is in %d succeeded chain transactions", in.uid, len(succ))
			}
		case client.StateFailed:
			a.failed++
			if len(succ) > 0 {
				a.failedLand++
				report(in, "FAILED BUT APPLIED: %s is FAILED but in %d succeeded chain transaction(s)", in.uid, len(succ))
			}
		default:
			report(in, "%s is %s after the node settled", in.uid, r.tx.State)
		}
		for _, c := range succ {
			if msg := mismatch(in, r, c); msg != "" {
				a.mismatched++
				report(in, "%s: %s", in.uid, msg)
			}
		}
	}

	// No succeeded transaction for an intent that was never acknowledged.
	for memo, cs := range succeededBy {
		if _, ok := byUID[memo]; ok {
			continue
		}
		a.unknownUIDs++
		var lines []string
		for _, c := range cs {
			lines = append(lines, "  "+c.String())
		}
		detail := "not known to the node either"
		if cl != nil {
			if tx, h, err := cl.Get(ctx, memo); err == nil {
				detail = fmt.Sprintf("the node has it: %s", recordString(record{tx: tx, history: h}))
			}
		}
		errorf("UNACKNOWLEDGED UID APPLIED: memo %q was never acknowledged to a client (%s):\n%s", memo, detail, strings.Join(lines, "\n"))
	}

	// FIFO per queue and one change per zkApp per block, over the succeeded
	// transactions in chain order.
	lastSeq := map[string]*intent{}
	perBlock := map[string]chainTx{} // zkapp → its succeeded tx in the current block
	var curHeight uint64
	for _, c := range txs {
		if c.status != chain.OutcomeSucceeded {
			continue
		}
		if c.height != curHeight {
			curHeight = c.height
			clear(perBlock)
		}
		if prev, ok := perBlock[c.zkapp]; ok {
			a.slotViolations++
			errorf("TWO CHANGES IN ONE BLOCK: zkapp %s changed twice in block %d:\n  %s (memo %s)\n  %s (memo %s)", c.zkapp, c.height, prev, prev.memo, c, c.memo)
		}
		perBlock[c.zkapp] = c
		in, ok := byUID[c.memo]
		if !ok {
			a.strayTxs++
			continue
		}
		if prev, ok := lastSeq[in.queue]; ok && in.seq <= prev.seq {
			a.fifoViolations++
			errorf("FIFO VIOLATION on queue %s: %s (seq %d, %s) landed at %d/%d after %s (seq %d)\n%s\n%s",
				in.queue, in.uid, in.seq, in.key, c.height, c.index, prev.uid, prev.seq,
				explain(in, records[in.uid], onChain[in.uid]), explain(prev, records[prev.uid], onChain[prev.uid]))
		}
		lastSeq[in.queue] = in
	}

	// Every included transaction, succeeded or failed, per zkApp per block.
	// A queue has one transaction in flight, and every zkapp method changes
	// its zkApp: two transactions of one queue in one block mean the
	// sequencer sent the next before the previous one was final (the second
	// fails "precondition", or both land), and a record's transaction that
	// failed "precondition" shared its block with another change.
	for lo := 0; lo < len(txs); {
		hi := lo
		for hi < len(txs) && txs[hi].height == txs[lo].height {
			hi++
		}
		checkBlockSlots(&a, errorf, txs[lo:hi], byUID, records, onChain)
		lo = hi
	}

	// The zkApps' final states hold exactly the DONE votes, in seq order.
	problems = append(problems, checkZkAppStates(ctx, dc, all, records)...)
	return a, problems, nil
}

// checkBlockSlots checks one block's transactions (every one, succeeded or
// failed): no two of one queue's records, and no record's failing with
// reason "precondition".
func checkBlockSlots(a *auditResult, errorf func(string, ...any), block []chainTx, byUID map[string]*intent, records map[string]record, onChain map[string][]chainTx) {
	perZkApp := map[string][]chainTx{}
	perQueue := map[string][]chainTx{}
	for _, c := range block {
		perZkApp[c.zkapp] = append(perZkApp[c.zkapp], c)
		if in, ok := byUID[c.memo]; ok {
			perQueue[in.queue] = append(perQueue[in.queue], c)
		}
	}
	for _, cs := range perZkApp {
		a.maxPerSlot = max(a.maxPerSlot, len(cs))
		if len(cs) > 1 {
			a.sharedSlots++
		}
	}
	// Every transaction on the zkApp in the block, for the reports.
	slot := func(zkapp string) string {
		var b strings.Builder
		for _, c := range perZkApp[zkapp] {
			fmt.Fprintf(&b, "  in the block: %s memo=%s\n", c, c.memo)
		}
		return b.String()
	}
	// The records of the transactions cs, each explained once.
	explainAll := func(cs []chainTx) string {
		var b strings.Builder
		seen := map[string]bool{}
		for _, c := range cs {
			in, ok := byUID[c.memo]
			if !ok || seen[c.memo] {
				continue
			}
			seen[c.memo] = true
			b.WriteString(explain(in, records[in.uid], onChain[in.uid]))
		}
		return b.String()
	}
	queues := make([]string, 0, len(perQueue))
	for q := range perQueue {
		queues = append(queues, q)
	}
	sort.Strings(queues)
	for _, q := range queues {
		cs := perQueue[q]
		if len(cs) < 2 {
			continue
		}
		a.queueSlotViolations++
		var memos []string
		for _, c := range cs {
			memos = append(memos, c.memo)
		}
		errorf("TWO TXS OF ONE QUEUE IN ONE BLOCK: queue %s has %d transactions in block %d (%s)\n%s%s",
			q, len(cs), cs[0].height, strings.Join(memos, ", "), slot(cs[0].zkapp), explainAll(cs))
	}
	for _, c := range block {
		if c.status == chain.OutcomeSucceeded || c.reason != devchain.ReasonPrecondition {
			continue
		}
		if _, ok := byUID[c.memo]; !ok {
			continue
		}
		a.preconditions++
		errorf("PRECONDITION FAILURE: %s at %d/%d on zkapp %s failed %q: another change of the zkApp shared its block\n%s%s",
			c.memo, c.height, c.index, c.zkapp, c.reason, slot(c.zkapp), explainAll(perZkApp[c.zkapp]))
	}
}

// mismatch checks that a succeeded chain transaction is the intent's: the
// right zkApp, method and payload, and one of the record's attempts.
func mismatch(in *intent, r record, c chainTx) string {
	if c.zkapp != in.queue {
		return fmt.Sprintf("chain tx %s changed zkapp %q, the intent's queue is %q", short(c.hash), c.zkapp, in.queue)
	}
	want := map[string]string{createType: "deploy", voteType: "append"}[in.typ]
	if c.method != want {
		return fmt.Sprintf("chain tx %s calls %s, want %s for %s", short(c.hash), c.method, want, in.typ)
	}
	if in.typ == voteType {
		var v struct {
			Voter string `json:"voter"`
		}
		if json.Unmarshal(c.value, &v) != nil || v.Voter != in.voter {
			return fmt.Sprintf("chain tx %s appends %s, want voter %s", short(c.hash), c.value, in.voter)
		}
	}
	for _, at := range r.tx.Attempts {
		if at.Hash == c.hash {
			return ""
		}
	}
	return fmt.Sprintf("chain tx %s (%s) is none of the record's attempts", short(c.hash), c)
}

// checkZkAppStates reads each queue's zkApp: its votes must be the DONE
// votes' voters in seq order.
func checkZkAppStates(ctx context.Context, dc auditChain, all []*intent, records map[string]record) []string {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	want := map[string][]*intent{}
	created := map[string]bool{}
	for _, in := range all {
		if records[in.uid].tx.State != client.StateDone {
			continue
		}
		if in.typ == createType {
			created[in.queue] = true
			continue
		}
		want[in.queue] = append(want[in.queue], in)
	}
	queues := map[string]bool{}
	for _, in := range all {
		queues[in.queue] = true
	}
	for name := range queues {
		args, _ := json.Marshal(map[string]string{"zkapp": name})
		res, err := dc.Call(ctx, "zkapp", "get", args)
		if !created[name] {
			if err == nil {
				errorf("ZKAPP STATE: zkapp %s exists though its CREATE is not DONE: %s", name, res)
			}
			continue
		}
		if err != nil {
			errorf("zkapp get %s: %v", name, err)
			continue
		}
		var st struct {
			State struct {
				Votes []struct {
					Voter string `json:"voter"`
				} `json:"votes"`
			} `json:"state"`
		}
		if err := json.Unmarshal(res, &st); err != nil {
			errorf("zkapp get %s: %s: %v", name, res, err)
			continue
		}
		w := want[name]
		sort.Slice(w, func(i, j int) bool { return w[i].seq < w[j].seq })
		var got, exp []string
		for _, v := range st.State.Votes {
			got = append(got, v.Voter)
		}
		for _, in := range w {
			exp = append(exp, in.voter)
		}
		if strings.Join(got, ",") != strings.Join(exp, ",") {
			errorf("ZKAPP STATE: zkapp %s votes on chain:\n  %v\nwant the DONE votes in seq order:\n  %v", name, got, exp)
		}
	}
	sort.Strings(problems)
	return problems
}

// explain renders an intent, its record (attempts, history) and its chain
// transactions for a failure message.
func explain(in *intent, r record, cs []chainTx) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  intent %s: %s on %s seq=%d key=%s data=%s (acknowledged %s after %d failed posts)\n", in.uid, in.typ, in.queue, in.seq, in.key, in.data,
		map[bool]string{true: "201", false: "200"}[in.created], in.failedPosts)
	fmt.Fprintf(&b, "  record: %s\n", recordString(r))
	if len(cs) == 0 {
		b.WriteString("  chain: no transaction carries this uid\n")
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "  chain: %s\n", c)
	}
	return b.String()
}

func recordString(r record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "state=%s retries=%d error=%q", r.tx.State, r.tx.Retries, r.tx.Error)
	for _, at := range r.tx.Attempts {
		fmt.Fprintf(&b, "\n    attempt %d: sender=%s nonce=%d fee=%d hash=%s outcome=%s height=%d at=%s", at.N, short(at.Sender), at.Nonce, at.Fee, short(at.Hash), at.Outcome, at.Height, at.At.Format("15:04:05.000"))
		if at.Error != "" {
			fmt.Fprintf(&b, " error=%q", at.Error)
		}
	}
	for _, h := range r.history {
		fmt.Fprintf(&b, "\n    history %s: %s → %s", h.At.Format("15:04:05.000"), h.From, h.To)
		if h.Binding != "" {
			fmt.Fprintf(&b, " binding=%s", h.Binding)
		}
		if h.Note != "" {
			fmt.Fprintf(&b, " note=%q", h.Note)
		}
	}
	return b.String()
}

// diagnoseStuck logs what is known of the transactions that did not settle:
// their records, their queues, and each attempt's status on the chain.
func diagnoseStuck(ctx context.Context, t *testing.T, cl *client.Client, dc *devchain.Client, all []*intent) {
	t.Helper()
	if qs, err := cl.Queues(ctx); err == nil {
		for _, q := range qs {
			if q.State != "FREE" {
				delay := ""
				if !q.DelayUntil.IsZero() {
					delay = " delayUntil=" + q.DelayUntil.Format("15:04:05.000")
				}
				t.Logf("queue %s: %s sender=%s tx=%s deadline=%d%s", q.Name, q.State, short(q.Sender), q.TxUID, q.Deadline, delay)
			}
		}
	}
	if hd, err := dc.Head(ctx); err == nil {
		t.Logf("chain head %d", hd.Height)
	}
	shown := 0
	for _, in := range all {
		tx, h, err := cl.Get(ctx, in.uid)
		if err != nil {
			t.Logf("%s: %v", in.uid, err)
			continue
		}
		if tx.State == client.StateDone || tx.State == client.StateFailed {
			continue
		}
		shown++
		if shown > 10 {
			continue
		}
		var sts []string
		for _, at := range tx.Attempts {
			if at.Hash == "" {
				continue
			}
			st, err := dc.TxStatus(ctx, chain.Hash(at.Hash))
			if err != nil {
				sts = append(sts, fmt.Sprintf("attempt %d %s: %v", at.N, short(at.Hash), err))
				continue
			}
			sts = append(sts, fmt.Sprintf("attempt %d %s: chain says %s height=%d success=%v reason=%q", at.N, short(at.Hash), st.State, st.Height, st.Success, st.Reason))
		}
		msg := fmt.Sprintf("STUCK %s (%s on %s seq %d): %s", in.uid, in.typ, in.queue, in.seq, recordString(record{tx: tx, history: h}))
		for _, s := range sts {
			msg += "\n    " + s
		}
		t.Logf("%s", msg)
	}
	if shown > 10 {
		t.Logf("... %d stuck transactions in all", shown)
	}
}

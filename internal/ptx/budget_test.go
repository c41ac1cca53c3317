package ptx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
)

// readCounter counts the intent queries that reach the store.
type readCounter struct {
	store.DistseqStore
	reads atomic.Int64
}

func (r *readCounter) DistseqIntents(ctx context.Context, f store.DistseqIntentFilter) ([]store.DistseqIntent, error) {
	r.reads.Add(1)
	return r.DistseqStore.DistseqIntents(ctx, f)
}

type countingBackend struct {
	backend
	rc *readCounter
}

func (b *countingBackend) Intents() store.DistseqStore { return b.rc }

// filled is a backend holding n pending intents of about 200 bytes each, as
// the issue's probe found them.
func filled(t *testing.T, n int) *countingBackend {
	t.Helper()
	st := memstore.NewDistseq()
	var recs []store.DistseqIntent
	for i := range n {
		at := time.Unix(int64(i), 0).UTC()
		recs = append(recs, store.DistseqIntent{TxID: fmt.Sprintf("tx_%032x", i), Contract: "g", IdempotencyKey: fmt.Sprintf("key-%d", i),
			Payload: []byte(`{"from":"alice@node1","to":"bob@node2","amount":5}`), Status: store.DistseqPending, CreatedAt: at, UpdatedAt: at})
	}
	if err := st.ApplyDistseq(context.Background(), store.DistseqBatch{Intents: recs}); err != nil {
		t.Fatal(err)
	}
	return &countingBackend{backend: backend{st: st}, rc: &readCounter{DistseqStore: st}}
}

func queryBatch(calls, limit int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range calls {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ptx_queryTransactions","params":[{"limit":%d}]}`, i, limit)
	}
	b.WriteByte(']')
	return b.String()
}

type rpcAnswer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

// TestAnswerBudget: a batch of queries from a read-only principal stops
// reading once its answer reached MaxAnswerBytes: the answer stays within
// it (plus the short errors), every call is answered, and the calls past
// the budget answer CodeBudget without a store read.
func TestAnswerBudget(t *testing.T) {
	t.Parallel()
	b := filled(t, 300)
	const maxAnswer = 256 << 10
	h := ptx.Handler{B: b, MaxAnswerBytes: maxAnswer, Budget: ptx.NewBudget(1 << 30)}
	code, body := call(t, h, []auth.Role{auth.RoleRead}, queryBatch(200, 1000))
	var out []rpcAnswer
	if err := json.Unmarshal([]byte(body), &out); err != nil || code != 200 {
		t.Fatalf("%d %.300s: %v", code, body, err)
	}
	if len(out) != 200 {
		t.Fatalf("%d answers, want 200", len(out))
	}
	ran, refused := 0, 0
	for i, a := range out {
		switch {
		case a.Error == nil:
			ran++
			if refused > 0 {
				t.Fatalf("answer %d ran after a refused one", i)
			}
		case a.Error.Code == ptx.CodeBudget && a.Error.Data.Code == ptx.BudgetAnswer:
			refused++
		default:
			t.Fatalf("answer %d: %+v", i, a.Error)
		}
	}
	per := len(body) / max(ran, 1) // about one query's answer
	if ran == 0 || refused == 0 || len(body) > maxAnswer+refused*200 {
		t.Fatalf("%d ran, %d refused, %d bytes answered (budget %d)", ran, refused, len(body), maxAnswer)
	}
	// One read per call run, plus the one whose answer would not fit.
	if reads := b.rc.reads.Load(); reads > int64(ran)+1 {
		t.Fatalf("%d store reads for %d calls run: refused calls read the store", reads, ran)
	}
	t.Logf("200 queries of 300 intents: %d run, %d refused, %d bytes answered (one query answers ~%d bytes)", ran, refused, len(body), per)
}

// TestNodeBudget: while other answers hold the node-wide budget, a call is
// refused before it runs (BudgetNode, no store read); once they gave their
// bytes back, it runs, and a written answer gives back all it held.
func TestNodeBudget(t *testing.T) {
	t.Parallel()
	b := filled(t, 10)
	pool := ptx.NewBudget(1 << 20)
	h := ptx.Handler{B: b, Budget: pool}
	q := `{"jsonrpc":"2.0","id":1,"method":"ptx_queryTransactions","params":[{"limit":10}]}`
	const others = 1<<20 - 1000 // what answers being built elsewhere hold
	if !ptx.TakeForTest(pool, others) {
		t.Fatal("could not hold the pool")
	}
	_, got := call(t, h, []auth.Role{auth.RoleRead}, q)
	if !strings.Contains(got, fmt.Sprintf(`"code":%d`, ptx.CodeBudget)) || !strings.Contains(got, ptx.BudgetNode) {
		t.Fatalf("a call while the pool is held: %s", got)
	}
	if reads := b.rc.reads.Load(); reads != 0 {
		t.Fatalf("%d reads: the refused call read the store", reads)
	}
	ptx.ReleaseForTest(pool, others)
	if _, got := call(t, h, []auth.Role{auth.RoleRead}, q); !strings.Contains(got, `"result":[`) {
		t.Fatalf("after: %s", got)
	}
	if used := pool.InUse(); used != 0 {
		t.Fatalf("%d bytes still held after every answer was written", used)
	}
}

// TestIssueBatchBounded is the issue's probe at its size: 1,000 intents,
// one batch of 1,000 ptx_queryTransactions with limit 1,000 from a
// read-only token, default budgets. It reports the bytes answered, and
// what the whole batch would have answered unbounded (one query's answer
// times 1,000).
func TestIssueBatchBounded(t *testing.T) {
	t.Parallel()
	b := filled(t, 1000)
	h := ptx.Handler{B: b, Budget: ptx.NewBudget(ptx.DefaultMaxBuildingBytes)}
	_, one := call(t, h, []auth.Role{auth.RoleRead}, queryBatch(1, 1000))
	_, body := call(t, h, []auth.Role{auth.RoleRead}, queryBatch(1000, 1000))
	var out []rpcAnswer
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 1000 {
		t.Fatalf("%d answers: %v", len(out), err)
	}
	ran := 0
	for _, a := range out {
		if a.Error == nil {
			ran++
		}
	}
	if len(body) > ptx.DefaultMaxAnswerBytes+1000*200 || ran == 0 || ran == 1000 {
		t.Fatalf("%d bytes answered, %d calls run", len(body), ran)
	}
	t.Logf("bytes answered: %d (%d of 1000 calls run, the rest %d); unbounded it would be %d", len(body), ran, ptx.CodeBudget, len(one)*1000)
}

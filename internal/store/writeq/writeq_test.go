package writeq_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

type req struct {
	writeq.Req
	name string
}

var errClosed = errors.New("closed")

func send(t *testing.T, q *writeq.Queue[*req], name string, weight int) *req {
	t.Helper()
	r := &req{Req: writeq.NewReq(t.Context(), weight), name: name}
	if err := q.Send(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func names(g []*req) (out []string) {
	for _, r := range g {
		out = append(out, r.name)
	}
	return out
}

// Next takes what waits up to the weight given; a request that would pass
// it leads the next group, so the order holds; after Close the queue
// drains, then ends, and Send is refused.
func TestNextGroupsInOrder(t *testing.T) {
	q := writeq.New[*req](errClosed)
	send(t, q, "a", 2)
	send(t, q, "b", 2)
	send(t, q, "c", 3)
	send(t, q, "d", 10)
	send(t, q, "e", 1)
	q.Close()
	var got [][]string
	var g []*req
	for {
		var ok bool
		if g, ok = q.Next(g, 5); !ok {
			break
		}
		got = append(got, names(g))
	}
	want := [][]string{{"a", "b"}, {"c"}, {"d"}, {"e"}}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || got[i][0] != want[i][0] || got[i][len(got[i])-1] != want[i][len(want[i])-1] {
			t.Fatalf("groups %v, want %v", got, want)
		}
	}
	r := &req{Req: writeq.NewReq(t.Context(), 1)}
	if err := q.Send(t.Context(), r); !errors.Is(err, errClosed) {
		t.Fatalf("Send after Close: %v, want %v", err, errClosed)
	}
}

// A request chained to a failed one is refused with ErrEarlierFailed; an
// empty one stands for the one it is chained to; one that failed before it
// was sent is woken at once with its error.
func TestStartChained(t *testing.T) {
	ctx := context.Background()
	q := writeq.New[*req](errClosed)
	first := &req{Req: writeq.NewReq(ctx, 1), name: "first"}
	s1 := q.StartChained(ctx, first, nil, false)
	empty := &req{Req: writeq.NewReq(ctx, 0), name: "empty"}
	s2 := q.StartChained(ctx, empty, s1, true)
	second := &req{Req: writeq.NewReq(ctx, 1), name: "second"}
	s3 := q.StartChained(ctx, second, s2, false)
	if second.After != &first.Req {
		t.Fatal("second is not chained to first through the empty request")
	}
	bad := &req{Req: writeq.NewReq(ctx, 1), name: "bad"}
	bad.Err = errors.New("invalid")
	if err := q.StartChained(ctx, bad, s3, false).Wait(ctx); err == nil || bad.After != nil {
		t.Fatalf("a request failed before its send: %v (chained %v)", err, bad.After != nil)
	}
	g, _ := q.Next(nil, 10)
	if len(g) != 2 || g[0] != first || g[1] != second {
		t.Fatalf("group %v, want [first second]", names(g))
	}
	first.Finish(errors.New("refused"))
	if err := second.Chained(); !errors.Is(err, store.ErrEarlierFailed) {
		t.Fatalf("Chained after the first failed: %v, want ErrEarlierFailed", err)
	}
	second.Finish(second.Chained())
	writeq.Unchain(g)
	if err := s3.Wait(ctx); !errors.Is(err, store.ErrEarlierFailed) {
		t.Fatalf("Wait: %v", err)
	}
	if second.After != nil {
		t.Fatal("Unchain left a chain")
	}
}

// Commit drops a request whose caller gave up, reruns the group without a
// refused one (which keeps its error), and on the group's own error fails
// every request left.
func TestCommit(t *testing.T) {
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	mk := func(ctx context.Context, name string) *req { return &req{Req: writeq.NewReq(ctx, 1), name: name} }
	refused, broken := errors.New("refused"), errors.New("disk full")
	for _, tc := range []struct {
		name      string
		runs      []error // what each run of the group returns for its first live request
		want      map[string]error
		committed []string
		reruns    int
	}{
		{name: "commits", runs: []error{nil}, want: map[string]error{"a": nil, "b": nil, "c": nil, "x": context.Canceled}, committed: []string{"a", "b", "c"}},
		{name: "refused then commits", runs: []error{refused, nil}, want: map[string]error{"a": refused, "b": nil, "c": nil, "x": context.Canceled}, committed: []string{"b", "c"}, reruns: 1},
		{name: "fails", runs: []error{broken}, want: map[string]error{"a": broken, "b": broken, "c": broken, "x": context.Canceled}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			group := []*req{mk(context.Background(), "a"), mk(gone, "x"), mk(context.Background(), "b"), mk(context.Background(), "c")}
			var starts, failed, reruns int
			var committed []string
			run := 0
			writeq.Commit(group, writeq.Group[*req]{
				Starting: func() { starts++ },
				Rerun: func() {
					reruns++
					for _, r := range group[1:] {
						select {
						case <-r.Done:
							if r.name != "x" {
								t.Errorf("%s woken before the rerun", r.name)
							}
						default:
						}
					}
				},
				Run: func(live []*req) (int, error) {
					err := tc.runs[run]
					run++
					if errors.Is(err, refused) {
						live[0].Err = err
						return 0, nil
					}
					return -1, err
				},
				Failed:    func(*req) { failed++ },
				Committed: func(live []*req) { committed = names(live) },
			})
			if starts != 1 || reruns != tc.reruns || run != len(tc.runs) {
				t.Fatalf("%d starts, %d reruns, %d runs; want 1, %d, %d", starts, reruns, run, tc.reruns, len(tc.runs))
			}
			for _, r := range group {
				select {
				case <-r.Done:
				default:
					t.Fatalf("%s not woken", r.name)
				}
				if !errors.Is(r.Err, tc.want[r.name]) || (tc.want[r.name] == nil) != (r.Err == nil) {
					t.Fatalf("%s: %v, want %v", r.name, r.Err, tc.want[r.name])
				}
			}
			if fmt.Sprint(committed) != fmt.Sprint(tc.committed) {
				t.Fatalf("committed %v, want %v", committed, tc.committed)
			}
			if wantFailed := map[bool]int{true: 3, false: 0}[errors.Is(tc.runs[len(tc.runs)-1], broken)]; failed != wantFailed {
				t.Fatalf("Failed called %d times, want %d", failed, wantFailed)
			}
		})
	}
}

package chain

import (
	"context"
	"errors"
	"testing"
	"time"
)

// nonceChain holds blocks 1..len(blocks), a block a second from t0, and
// returns at most page per Blocks call.
type nonceChain struct {
	blocks []Block
	page   int
	err    error
}

func (n *nonceChain) Head(context.Context) (BlockHeader, error) {
	return n.blocks[len(n.blocks)-1].BlockHeader, nil
}

func (n *nonceChain) Blocks(_ context.Context, from, to uint64) ([]Block, error) {
	if n.err != nil {
		return nil, n.err
	}
	to = min(to, uint64(len(n.blocks)), from+uint64(n.page)-1)
	var out []Block
	for h := from; h <= to; h++ {
		out = append(out, n.blocks[h-1])
	}
	return out, nil
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// chainOf builds heights blocks; block h holds a transaction of "0xAb" at
// nonce h, memo "m<h>", when h is in with.
func chainOf(heights int, with ...int) *nonceChain {
	c := &nonceChain{page: 7}
	for h := 1; h <= heights; h++ {
		b := Block{BlockHeader: BlockHeader{Height: uint64(h), Time: t0.Add(time.Duration(h) * time.Second)}}
		for _, w := range with {
			if w == h {
				b.Txs = append(b.Txs, BlockTx{Tx: Tx{From: "0xother", Nonce: uint64(h)}}, BlockTx{Tx: Tx{From: "0xAb", Nonce: uint64(h), Memo: "m" + string(rune('0'+h%10))}, Hash: Hash("h" + string(rune('0'+h%10))), Index: 1})
			}
		}
		c.blocks = append(c.blocks, b)
	}
	return c
}

func TestFindNonce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		c      *nonceChain
		nonce  uint64
		since  time.Time
		limit  uint64
		height uint64 // 0: not found
	}{
		{"near the head", chainOf(200, 198), 198, time.Time{}, 0, 198},
		{"many windows back", chainOf(200, 3), 3, time.Time{}, 0, 3},
		{"the first block", chainOf(200, 1), 1, time.Time{}, 0, 1},
		{"another account's nonce only", chainOf(50), 20, time.Time{}, 0, 0},
		{"older than since", chainOf(200, 3), 3, t0.Add(100 * time.Second), 0, 0},
		{"at since", chainOf(200, 100), 100, t0.Add(100 * time.Second), 0, 100},
		{"past the limit", chainOf(200, 3), 3, time.Time{}, 150, 0},
		{"within the limit", chainOf(200, 60), 60, time.Time{}, 150, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tx, h, ok, err := FindNonce(context.Background(), tc.c, "0xab", tc.nonce, tc.since, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.height > 0) || h != tc.height {
				t.Fatalf("found %v at %d, want height %d", ok, h, tc.height)
			}
			if ok && (tx.Nonce != tc.nonce || tx.From != "0xAb" || tx.Index != 1) {
				t.Fatalf("found %+v", tx)
			}
		})
	}
}

func TestFindNonceError(t *testing.T) {
	t.Parallel()
	c := chainOf(10, 2)
	c.err = errors.New("down")
	if _, _, _, err := FindNonce(context.Background(), c, "0xab", 2, time.Time{}, 0); !errors.Is(err, c.err) {
		t.Fatalf("err %v, want the reader's", err)
	}
}

package chain

import (
	"context"
	"errors"
	"testing"
)

// pagedReader holds blocks 0..head and returns at most page per call.
type pagedReader struct {
	head, page uint64
	calls      int
}

func (p *pagedReader) Blocks(ctx context.Context, from, to uint64) ([]Block, error) {
	p.calls++
	to = min(to, p.head, from+p.page-1)
	var out []Block
	for h := from; h <= to; h++ {
		out = append(out, Block{BlockHeader: BlockHeader{Height: h}})
	}
	return out, nil
}

func TestEachBlock(t *testing.T) {
	for _, tc := range []struct {
		name           string
		from, to, head uint64
		want           []uint64
	}{
		{"pages", 1, 7, 10, []uint64{1, 2, 3, 4, 5, 6, 7}},
		{"to past the head", 8, ^uint64(0), 10, []uint64{8, 9, 10}},
		{"from past the head", 11, 20, 10, nil},
		{"empty range", 5, 4, 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []uint64
			err := EachBlock(context.Background(), &pagedReader{head: tc.head, page: 3}, tc.from, tc.to, func(b Block) error {
				got = append(got, b.Height)
				return nil
			})
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("heights %v, %v; want %v", got, err, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("heights %v, want %v", got, tc.want)
				}
			}
		})
	}
	stop := errors.New("stop")
	n := 0
	err := EachBlock(context.Background(), &pagedReader{head: 10, page: 3}, 0, 10, func(Block) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Fatalf("err %v after %d blocks, want stop after 2", err, n)
	}
}

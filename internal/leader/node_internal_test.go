package leader

import (
	"log/slog"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// TestNewCoreDropsToolDefinitions: a core built again (the engine running
// once more after it lost its lease) reads tool definitions afresh: the
// ones read before may have changed on chain in events another node
// indexed, which this node's listener never sees.
func TestNewCoreDropsToolDefinitions(t *testing.T) {
	st, err := sqlite.Open(t.Context(), t.TempDir()+"/ordo.db", sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := &Node{cfg: Config{Store: st, Clock: clock.NewVirtual(clock.Epoch), Core: CoreConfig{Accounts: []string{"a"}}},
		log: slog.New(slog.DiscardHandler), defs: newToolCache(), tr: newTraceWriter(nil)}
	n.chans.Store(newChannelSet(n.cfg.Core.Accounts))
	n.defs.defs["arith"] = toolDef{Tool: "arith", URL: "http://old.example", Version: 1}
	if _, err := n.newCore(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(n.defs.defs) != 0 {
		t.Fatalf("tool definitions after a new core: %v, want none", n.defs.defs)
	}
}

package processor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/processor"
)

// TestAddRefusesUnknownContract: a batch naming a contract the chain does
// not know, in a message or in a callback confirmation, is refused when
// it is added (422 unknown_contract, naming the field), and nothing is
// queued; a batch of known contracts is taken.
func TestAddRefusesUnknownContract(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e := newEnv(ctx, t)
	for _, tc := range []struct{ name, body, field string }{
		{"a message", `{"id":"u1","priority":"high","msgs":[{"contract":"library","method":"ok"},{"contract":"nosuchcontract","method":"ok"}],
			"actionsConfig":{"atomic":{"actions":[{},{}]}}}`, "msgs[1].contract"},
		{"a callback confirmation", `{"id":"u2","priority":"high","msgs":[{"contract":"library","method":"ok"}],
			"actionsConfig":{"nonAtomic":{"actions":[{"callbackConfirmation":{"contract":"nosuchcontract"}}]}}}`,
			"actionsConfig.nonAtomic.actions[0].callbackConfirmation.contract"},
	} {
		b := e.call(t, "alice", "POST", "/v1/processors/p/batches", tc.body, http.StatusUnprocessableEntity)
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal(b, &body); err != nil || body.Error.Code != processor.CodeUnknownContract ||
			!strings.Contains(body.Error.Message, tc.field) || !strings.Contains(body.Error.Message, "nosuchcontract") {
			t.Errorf("%s: %s, want %s naming %s", tc.name, b, processor.CodeUnknownContract, tc.field)
		}
	}
	e.call(t, "alice", "GET", "/v1/processors/p/batches/u1", "", http.StatusNotFound)
	e.call(t, "alice", "POST", "/v1/processors/p/batches", `{"id":"k1","priority":"high","msgs":[{"contract":"library","method":"ok"}],
		"actionsConfig":{"nonAtomic":{"actions":[{"callbackConfirmation":{"contract":"library"}}]}}}`, http.StatusOK)
}

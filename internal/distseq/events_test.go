package distseq_test

import (
	"encoding/json"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
)

// FuzzDecodeEvent: any event data decodes to an event or to none, never
// a panic; an IntentConfirmed keeps its fields.
func FuzzDecodeEvent(f *testing.F) {
	f.Add("IntentConfirmed", []byte(`{"group":"g","txId":"t","spends":["a"],"creates":["b"],"digest":"00"}`))
	f.Add("GroupDeployed", []byte(`{"group":"g","members":[{"id":"A","publicKey":"aa"}],"threshold":1}`))
	f.Add("StatesMinted", []byte(`{"group":"g","states":["m"],"minted":[{"id":"m","data":{"amount":1}}]}`))
	f.Add("Other", []byte(`null`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		e, ok := distseq.DecodeEvent(chain.Event{Contract: devchain.PrivacyGroupContract, Name: name, Height: 3, Data: data})
		if !ok {
			return
		}
		if e.Height != 3 {
			t.Fatalf("height %d, want 3", e.Height)
		}
		if name == "IntentConfirmed" {
			var ic devchain.IntentConfirmed
			if json.Unmarshal(data, &ic) == nil && (e.TxID != ic.TxID || e.Digest != ic.Digest) {
				t.Fatalf("decoded %+v from %+v", e, ic)
			}
		}
	})
}

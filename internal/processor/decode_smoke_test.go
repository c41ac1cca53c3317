package processor

import (
	"errors"
	"testing"
)

func TestDecodeBatchSmoke(t *testing.T) {
	good := `{"msgs":[{"contract":"library","method":"a","args":{"x":1}}],"actionsConfig":{"nonAtomic":{"actions":[{"retryLogic":{"times":"indefinitely","interval":{"duration":"2s"}},"callbackConfirmation":{"contract":"library"}}]}},"priority":"high","position":0}`
	if _, err := DecodeBatch([]byte(good)); err != nil {
		t.Fatalf("good batch refused: %v", err)
	}
	for _, bad := range []string{
		`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}],"retryLogic":{"times":{"Amount":1},"interval":{"blocks":1}}}},"priority":"high"}`,
		`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}],"retryLogic":{"times":{"amount":1,"amount":2},"interval":{"blocks":1}}}},"priority":"high"}`,
		`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{}],"retryLogic":{"times":{"amount":1},"interval":{"blocks":1,"duration":"1s"}}}},"priority":"high"}`,
		`{"msgs":[],"actionsConfig":{"atomic":{"actions":[]}},"priority":"high","extra":1}`,
	} {
		if _, err := DecodeBatch([]byte(bad)); !errors.Is(err, ErrBadBatch) {
			t.Errorf("%s: got %v, want ErrBadBatch", bad, err)
		}
	}
	var fe *FieldError
	if _, err := DecodeBatch([]byte(`{"msgs":[{"contract":"library","method":"a"}],"actionsConfig":{"atomic":{"actions":[{},{}]}},"priority":"high"}`)); !errors.As(err, &fe) || fe.Field != "actionsConfig.atomic.actions" {
		t.Errorf("mismatched actions: %v", err)
	}
}

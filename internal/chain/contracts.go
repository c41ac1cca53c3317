package chain

import (
	"context"
	"errors"
)

// probeMethod is the method KnowsContract asks for: a valid name no
// contract defines.
const probeMethod = "-"

// KnowsContract reports whether the chain knows the contract name: it
// asks c for a read of a method no contract has (probeMethod), which a
// chain answers ErrUnknownContract for a contract it does not know and
// another error (ErrUnknownMethod, as a rule) for one it does. Any
// other failure to answer (the chain unreachable) is returned as the
// error, with known false.
func KnowsContract(ctx context.Context, c Chain, name string) (known bool, err error) {
	_, err = c.Call(ctx, name, probeMethod, nil)
	switch {
	case errors.Is(err, ErrUnknownContract):
		return false, nil
	case err == nil, errors.Is(err, ErrUnknownMethod), errors.Is(err, ErrCallFailed), errors.Is(err, ErrNotFound):
		return true, nil
	}
	return false, err
}

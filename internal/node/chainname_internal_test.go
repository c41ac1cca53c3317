package node

import "testing"

// chainName names the chain a node runs on in its logs: an EVM chain by
// its URLs, not as the in-process devchain.
func TestChainName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"in-process", Config{}, "in-process devchain"},
		{"remote devchain", Config{Chain: "http://127.0.0.1:8080"}, "http://127.0.0.1:8080"},
		{"evm", Config{EVM: EVMConfig{URLs: []string{"ws://127.0.0.1:8546", "http://127.0.0.1:8545"}}}, "ws://127.0.0.1:8546, http://127.0.0.1:8545"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := chainName(tc.cfg); got != tc.want {
				t.Errorf("chainName = %q, want %q", got, tc.want)
			}
		})
	}
}

package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/auth"
)

// tokenBytes is the randomness of a token `ordo token` makes.
const tokenBytes = 32

// newToken returns a fresh random token: 32 bytes from crypto/rand in
// unpadded base64url (43 characters).
func newToken() string {
	b := make([]byte, tokenBytes)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenCommand() *cobra.Command {
	var (
		principal string
		roles     []string
	)
	cmd := &cobra.Command{
		Use:   "token [--principal NAME] [--roles submit,read]",
		Short: "Make a random bearer token and print it with the config lines of a principal that has it",
		Long: `token makes a random bearer token (32 bytes from crypto/rand, base64url) and prints it,
then its SHA-256 as the lines of a principal to paste into the node's config (under
principals:); the whole output is valid YAML (the token is in a comment). The config needs only the hash: keep the token itself for the client, which
sends it with --token or ORDO_TOKEN (Authorization: Bearer TOKEN). Roles: admin (every
right), submit (POST /v1/transactions), read (the reads, unless openReads), or any role
an engine checks.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rs := make([]auth.Role, 0, len(roles))
			for _, r := range roles {
				rs = append(rs, auth.Role(strings.TrimSpace(r)))
			}
			tok := newToken()
			pc := auth.PrincipalConfig{Principal: principal, TokenSHA256: auth.TokenSHA256(tok), Roles: rs}
			if err := (auth.Config{Principals: []auth.PrincipalConfig{pc}}).Validate(); err != nil {
				return err
			}
			return printToken(cmd.OutOrStdout(), tok, pc)
		},
	}
	cmd.Flags().StringVar(&principal, "principal", "app", "the principal's name (1 to 64 of A-Z a-z 0-9 . _ @ -)")
	cmd.Flags().StringSliceVar(&roles, "roles", []string{"submit", "read"}, "the principal's roles, comma-separated")
	return cmd
}

// printToken prints a token and the config lines of its principal.
func printToken(w io.Writer, tok string, pc auth.PrincipalConfig) error {
	rs := make([]string, len(pc.Roles))
	for i, r := range pc.Roles {
		rs[i] = string(r)
	}
	_, err := fmt.Fprintf(w, `# token: %s
# tokenSHA256: %s
#
# The node's config (ordo serve --config FILE) keeps only the hash. Paste:
principals:
  - principal: %s
    tokenSHA256: %s
    roles: [%s]
# and give the token to the client: ordo tx ... --token TOKEN, or ORDO_TOKEN=TOKEN.
# It is shown only now; run ordo token again for another.
`, tok, pc.TokenSHA256, pc.Principal, pc.TokenSHA256, strings.Join(rs, ", "))
	return err
}

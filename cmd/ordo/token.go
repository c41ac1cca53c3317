package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
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
		tokenFile string
	)
	cmd := &cobra.Command{
		Use:   "token [--principal NAME] [--roles submit,read] [--token-file FILE]",
		Short: "Make a random bearer token: the config lines of its principal on stdout (its SHA-256 only), the token apart",
		Long: `token makes a random bearer token (32 bytes from crypto/rand, base64url) for a principal.

On stdout it prints the principal's config lines to paste under principals: in the node's
config, with the token's SHA-256 only (tokenSHA256): valid YAML, safe to redirect into a
config file (ordo token > node.yaml). The token itself never goes to stdout: with
--token-file FILE it is written to FILE (created with mode 0600; an existing file is never
overwritten), else it is printed on stderr, once. Give it to the client, which sends it with
--token or ORDO_TOKEN (Authorization: Bearer TOKEN); keep it out of the node's config.

Roles: admin (every right), submit (POST /v1/transactions), read (the reads, unless
openReads), or any role an engine checks.`,
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
			if tokenFile != "" {
				if err := writeTokenFile(tokenFile, tok); err != nil {
					return err
				}
			}
			if err := printPrincipal(cmd.OutOrStdout(), pc, tokenFile); err != nil {
				return err
			}
			if tokenFile == "" {
				_, err := fmt.Fprintf(cmd.ErrOrStderr(), "ordo token: the token of principal %s (give it to the client; it is shown only now and is not in the config lines): %s\n", pc.Principal, tok)
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&principal, "principal", "app", "the principal's name (1 to 64 of A-Z a-z 0-9 . _ @ -)")
	cmd.Flags().StringSliceVar(&roles, "roles", []string{"submit", "read"}, "the principal's roles, comma-separated")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "write the token to this new file (mode 0600) instead of printing it on stderr")
	return cmd
}

// writeTokenFile writes tok and a newline to a new file at path, readable
// by its owner only; it never replaces an existing file.
func writeTokenFile(path, tok string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("--token-file: %w", err)
	}
	if _, err := io.WriteString(f, tok+"\n"); err != nil {
		f.Close()
		return fmt.Errorf("--token-file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--token-file: %w", err)
	}
	return nil
}

// printPrincipal prints the config lines of a principal: its token's
// SHA-256, never the token (which is in tokenFile, or on stderr when
// tokenFile is "").
func printPrincipal(w io.Writer, pc auth.PrincipalConfig, tokenFile string) error {
	rs := make([]string, len(pc.Roles))
	for i, r := range pc.Roles {
		rs[i] = string(r)
	}
	where := "printed on stderr, once"
	if tokenFile != "" {
		where = "in " + tokenFile + " (mode 0600)"
	}
	_, err := fmt.Fprintf(w, `# The node's config (ordo serve --config FILE) keeps only the token's SHA-256.
# The token is %s: give it to the client (ordo tx ... --token, or ORDO_TOKEN),
# never to the node's config. Run ordo token again for another.
principals:
  - principal: %s
    tokenSHA256: %s
    roles: [%s]
`, where, pc.Principal, pc.TokenSHA256, strings.Join(rs, ", "))
	return err
}

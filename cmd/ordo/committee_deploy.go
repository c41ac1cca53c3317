package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/committee"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/ptx"
)

// committeeDeployCommand deploys a privacy group whose committee is the
// nodes of a directory `ordo committee init` wrote, and mints it coins,
// from a dev account of the devchain (dev mode).
func committeeDeployCommand() *cobra.Command {
	var out, group, chainURL, owner, keyFile string
	var coins, threshold int
	var amount uint64
	cmd := &cobra.Command{
		Use:   "deploy --out DIR --group NAME [--chain URL] [--coins N] [--amount A] [--owner NAME]",
		Short: "Deploy a privacygroup whose committee is the nodes in DIR, and mint coins for an owner on each member (devchain dev mode, or an EVM chain's PrivacyGroup with --key-file)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := ptx.CheckOwnerName(owner); err != nil {
				return fmt.Errorf("--owner: %w", err)
			}
			if e, ok, err := evmCommitteeOf(out); err != nil {
				return err
			} else if ok {
				if keyFile == "" {
					return fmt.Errorf("the committee is on an EVM chain: --key-file names the funded account that deploys and mints")
				}
				if threshold < 0 || threshold > len(e.members) {
					return fmt.Errorf("--threshold must be from 1 to the %d members (0: every member), got %d", len(e.members), threshold)
				}
				if err := deployGroupEVM(cmd.Context(), e, keyFile, group, threshold, coins, amount, owner); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deployed privacy group %s on PrivacyGroup %s: %d members, %d coins of %d for %s@<member> on each\n",
					group, strings.ToLower(e.group.Hex()), len(e.members), coins, amount, owner)
				return nil
			}
			members, err := committeeMembers(out)
			if err != nil {
				return err
			}
			c := devchain.NewClient(chainURL, nil)
			if threshold < 0 || threshold > len(members) {
				return fmt.Errorf("--threshold must be from 1 to the %d members (0: every member), got %d", len(members), threshold)
			}
			if err := ptx.CheckOwnerName(owner); err != nil {
				return fmt.Errorf("--owner: %w", err)
			}
			if err := deployGroup(cmd.Context(), c, group, members, threshold, coins, amount, owner); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deployed privacy group %s: %d members, %d coins of %d for %s@<member> on each\n", group, len(members), coins, amount, owner)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the directory `ordo committee init` wrote")
	cmd.Flags().StringVar(&group, "group", "g", "the privacy group's name")
	cmd.Flags().StringVar(&chainURL, "chain", committee.DefaultChain, "the devchain's URL (dev mode)")
	cmd.Flags().IntVar(&coins, "coins", 100, "coins to mint for the owner on each member")
	cmd.Flags().StringVar(&owner, "owner", committee.AdminPrincipal, "the coins' owner on each member (<owner>@<member>: the principal of that name, or one configured in ptx.owners, spends them)")
	cmd.Flags().IntVar(&threshold, "threshold", 0, "endorsements a transaction needs (0: every member; fewer lets the group go on while members are down)")
	cmd.Flags().Uint64Var(&amount, "amount", 1000, "each coin's amount")
	cmd.Flags().StringVar(&keyFile, "key-file", "", "on an EVM chain (the nodes' configs have evm:): the funded key that deploys and mints (raw hex or keystore)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// committeeMembers reads the node ids and keys of DIR/node*/.
func committeeMembers(out string) ([]devchain.PrivacyMember, error) {
	keys, err := filepath.Glob(filepath.Join(out, "node*", "node.key"))
	if err != nil || len(keys) == 0 {
		return nil, fmt.Errorf("no node*/node.key under %s: run ordo committee init --out %s first", out, out)
	}
	sort.Strings(keys)
	var ms []devchain.PrivacyMember
	for _, kp := range keys {
		k, _, err := identity.Load(kp, filepath.Join(filepath.Dir(kp), "node.crt"))
		if err != nil {
			return nil, err
		}
		ms = append(ms, devchain.PrivacyMember{ID: string(k.ID()), PublicKey: hex.EncodeToString(k.Public())})
	}
	return ms, nil
}

// deployGroup sends the deploy and the mints from the chain's first dev
// account and waits for each to be included.
func deployGroup(ctx context.Context, c *devchain.Client, group string, ms []devchain.PrivacyMember, threshold, coins int, amount uint64, owner string) error {
	accts, err := c.DevAccounts(ctx)
	if err != nil || len(accts) == 0 {
		return fmt.Errorf("dev accounts of the chain (is it a devchain in dev mode?): %w", err)
	}
	from := accts[0].Address
	acct, err := c.Account(ctx, from)
	if err != nil {
		return err
	}
	nonce := acct.PendingNonce
	fee, err := c.MinFee(ctx)
	if err != nil {
		return err
	}
	send := func(method string, args any) error {
		b, _ := json.Marshal(args)
		h, err := c.SendTx(ctx, chain.Tx{From: from, Nonce: nonce, Fee: 2 * fee, Contract: devchain.PrivacyGroupContract, Method: method, Args: b})
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		nonce++
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := chain.WaitIncluded(wctx, c, clock.Real{}, 200*time.Millisecond, h); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		return nil
	}
	deploy := map[string]any{"group": group, "members": ms}
	if threshold > 0 {
		deploy["threshold"] = threshold
	}
	if err := send("deploy", deploy); err != nil {
		return err
	}
	var all []distseq.StateRef
	for _, m := range ms {
		all = append(all, token.Mint(group+"-coin-"+m.ID+"-", owner+"@"+m.ID, repeat(amount, coins)...)...)
	}
	for len(all) > 0 {
		n := min(len(all), devchain.MaxPrivacyIO)
		ps := make([]devchain.PrivacyState, n)
		for i, s := range all[:n] {
			ps[i] = devchain.PrivacyState{ID: s.ID, Owner: s.Owner, Data: json.RawMessage(s.Data)}
		}
		if err := send("mint", map[string]any{"group": group, "states": ps}); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}

func repeat(v uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

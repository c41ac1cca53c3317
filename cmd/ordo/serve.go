package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/node"
)

func serveCommand() *cobra.Command {
	var (
		configFile string
		storeURL   string
		listen     string
		data       string
		chainURL   string
		devSenders int
		devMode    bool
		blockTime  string
		trace      string
		devPublic  bool
		tlsCert    string
		tlsKey     string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run an ordo node: intake API, sequencer, and (without --chain) an in-process devchain",
		Long: `serve runs a node. Its API knows its callers by bearer token: the config's principals
(each a token or its SHA-256, and roles; ` + "`ordo token`" + ` makes one) — without --dev-mode
and without any principal it refuses to start. It listens on 127.0.0.1:7070 unless
--listen (or listen: in the config) says otherwise; in dev mode only a loopback address is
accepted unless --dev-mode-on-public-address is given. With --tls-cert and --tls-key (api.tls)
it serves HTTPS.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var cfg node.Config
			if configFile != "" {
				c, err := node.LoadConfig(configFile)
				if err != nil {
					return err
				}
				cfg = c
			}
			f := cmd.Flags()
			if f.Changed("listen") || cfg.Listen == "" {
				cfg.Listen = listen
			}
			if f.Changed("data") || cfg.Data == "" {
				cfg.Data = data
			}
			if f.Changed("chain") {
				cfg.Chain = chainURL
			}
			if f.Changed("store") {
				cfg.Store.URL = storeURL
			}
			if f.Changed("dev-mode") {
				cfg.DevMode = devMode
			}
			if f.Changed("dev-mode-on-public-address") {
				cfg.API.DevModeOnPublicAddress = devPublic
			}
			if f.Changed("tls-cert") {
				cfg.API.TLS.CertFile = tlsCert
			}
			if f.Changed("tls-key") {
				cfg.API.TLS.KeyFile = tlsKey
			}
			if f.Changed("dev-senders") {
				cfg.SetDevSenders(devSenders) // 0 means none, not the default
			}
			if f.Changed("block-time") {
				if err := (&cfg.Devchain.BlockTime).Set(blockTime); err != nil {
					return err
				}
			}
			// Outside dev mode a node needs a principal, or it could
			// answer nobody: say how to add one before touching anything
			// (after the config's own mistakes, which Build reports too).
			if err := cfg.Validate(); err != nil {
				return fmt.Errorf("config: %w", err)
			}
			if err := cfg.CheckAccess(); err != nil {
				return err
			}
			if err := cfg.CheckDevModeAddress(cfg.Listen); err != nil {
				return err
			}
			log := logger(cmd)
			n, err := node.Build(cmd.Context(), cfg, node.Options{Logger: log, Trace: trace})
			if err != nil {
				return err
			}
			defer n.Close()
			logLimits(cmd.Context(), log, n)
			return n.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "YAML config file (flags override it)")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7070", "HTTP API address")
	cmd.Flags().StringVar(&data, "data", "ordo-data", "data directory")
	cmd.Flags().StringVar(&storeURL, "store", "", "the engines' store: empty for the embedded SQLite database in the data directory, or a PostgreSQL URL (postgres://user:pass@host:5432/db); overrides store.url")
	cmd.Flags().StringVar(&chainURL, "chain", "", "http(s) URL of a standalone devchain (empty: run one in-process)")
	cmd.Flags().BoolVar(&devMode, "dev-mode", false, "open access (every caller is an admin, no token needed) and serve the in-process devchain's dev routes on the node's address (POST /v1/tx, faults, faucet, dev accounts, mine); off: principals from the config, and the chain's reads only. Warns at start; never on an exposed node")
	cmd.Flags().BoolVar(&devPublic, "dev-mode-on-public-address", false, "let a node in --dev-mode listen on an address other than loopback (refused without it): anyone who reaches it is an admin; overrides api.devModeOnPublicAddress")
	cmd.Flags().StringVar(&tlsCert, "tls-cert", "", "serve the API over HTTPS with this certificate (PEM; with --tls-key); overrides api.tls.certFile")
	cmd.Flags().StringVar(&tlsKey, "tls-key", "", "the private key of --tls-cert (PEM); overrides api.tls.keyFile")
	cmd.Flags().IntVar(&devSenders, "dev-senders", 0, "create this many sender keys in the node's keystore and fund them from the chain's faucet (refused on a chain without one); 0 means none (unset: 8 when no senders are configured, else 0)")
	cmd.Flags().StringVar(&blockTime, "block-time", "1s", "block time of the in-process devchain")
	cmd.Flags().StringVar(&trace, "trace", "", "append the sequencer's inputs and Readys to this file (replay it with `ordo replay`)")
	return cmd
}

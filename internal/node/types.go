package node

import "github.com/ordolabs/ordo/internal/store"

type storeState = store.TxState

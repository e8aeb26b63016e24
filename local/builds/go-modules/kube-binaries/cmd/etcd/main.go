// Command etcd is the etcd server, built from the module proxy
// (go.etcd.io/etcd/server/v3) at the version Kubernetes pins.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}

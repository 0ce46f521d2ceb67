package main

import "github.com/sessfs/sessfs/backing"

// agentFileHistory is what reads the agents' own file histories for
// revert-code and the mount: none yet, sessfs's snapshots alone.
func agentFileHistory() backing.AgentFileHistory { return nil }

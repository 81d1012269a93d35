// Package nodeapply is what the keyset pod does on a node
// (docs/keysets-nodes.md#on-the-node): it makes the node's rackroll users
// exactly the NodeKeys it is given — accounts in /etc/passwd, group,
// shadow (no password: keys only) and gshadow, a home with the key in
// ~/.ssh/authorized_keys, and for a superuser a file in /etc/sudoers.d —
// and answers the keyset.NodeReport of what the files then hold. It never
// touches a user it did not make (rackroll's carry Marker in their GECOS
// and an id in [IDMin, IDMax]). MakePlan decides, without I/O; Applier
// reads and writes the files under a root, as cmd/rackroll-keyset runs it.
package nodeapply

// Package record is the communication pattern that libgpumap_record.so
// records and "gpumap place" reads: what every rank of MPI_COMM_WORLD
// sent to every other, merged into a METIS graph.
//
// Each rank contributes a Rank (its host and, per destination world rank,
// bytes and messages), encoded compactly for the gather at MPI_Finalize
// (EncodeRank, DecodeRank; the caller compresses). Build merges them: the
// graph has one vertex per rank (vertex i+1 in METIS numbering is rank i)
// and an edge {a,b} of weight bytes(a->b) + bytes(b->a) wherever bytes
// flowed; messages to oneself are only totalled. The file starts with
// '%' comment lines that METIS readers skip:
//
//	% gpumap record: MPI_COMM_WORLD communication pattern, vertex i+1 = rank i, edge weight = bytes sent both ways
//	% program: ./stencil 4 4 1
//	% ranks: 16
//	% hosts: node0 node1
//	% rank-hosts: 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1
//	% sent: 50331648 bytes in 96 messages (to self: 0 bytes in 0 messages)
//
// "rank-hosts" gives the host of every rank as an index into "hosts";
// ReadHeader parses these lines back.
package record

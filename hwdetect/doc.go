// Package hwdetect finds where every process of a job runs and infers the
// machine hierarchy from it.
//
// Locate reports the calling process's location: its host (the MPI
// processor name, passed in), the boot id of that host's kernel (two
// network namespaces on one machine are still two hosts; a container
// clone with the same hostname is not), and the package (socket) and core
// of its CPU binding, read through hwloc. hwloc is the field's standard
// for this: both MPI stacks already link it, it honours HWLOC_XMLFILE so
// tests can fake sockets, and it sees through cgroups and offline CPUs the
// way the MPI launchers do. A process whose binding spans several sockets
// (or that is not bound) has an unknown socket.
//
// Infer turns the gathered records of all processes into a topology:
// PEs are the processes, sorted by (switch, host, socket, core, rank);
// levels are socket, node and, when SLURM_TOPOLOGY_ADDR names one, switch.
// Nothing is inferred from rank numbers. Irregular allocations work: hosts
// may run different numbers of processes and sockets may be partly used.
// Processes of unknown socket each form their own socket group: they are
// assumed to share nothing below the node. A Spec can replace the detected
// hierarchy (GPUMAP_HIERARCHY) or distances (GPUMAP_DISTANCE).
package hwdetect

//go:build mpich

package gompi

// gompi v0.2.0 links OpenMPI whatever the tags (its flags.go names
// OpenMPI's directories): with -tags mpich a program would load both MPI
// libraries. Build Go programs that use gompi without the mpich tag.
var _ = gompi_v0_2_0_links_OpenMPI_only__build_without_the_mpich_tag

// kernels_team.cc: gpumap.cu compiled for the host, once per team
// (-DEMU_TEAM=t). Each copy has its own kernel symbols (emu_t<t>_<name>)
// and so its own static __shared__ storage: blocks that run at once on
// different teams never share it. KERNELS_CU names the source; gen.sh
// wrote the kernel list (kernels.inc) and the renames from it.
#include "emu.h"

#define EMU_NAME(n) EMU_NAME2(EMU_TEAM, n)
#define EMU_NAME2(t, n) EMU_NAME3(t, n)
#define EMU_NAME3(t, n) emu_t##t##_##n
#define EMU_TABLE2(t) EMU_TABLE3(t)
#define EMU_TABLE3(t) emu_table_##t

#include "rename.h"
#include KERNELS_CU
#include "unrename.h"

#define K(name, team)                                                                                        \
    {#name, team, (void *)&EMU_NAME(name), &emu_invoker<decltype(EMU_NAME(name))>::call,                     \
     emu_invoker<decltype(EMU_NAME(name))>::nargs, emu_invoker<decltype(EMU_NAME(name))>::pointers()},
extern "C" const emu_kernel EMU_TABLE2(EMU_TEAM)[] = {
#include "kernels.inc"
    {nullptr, 0, nullptr, nullptr, 0, 0}};

// gpumap's CUDA kernels: the data-parallel phases of integrated mapping.
// Compiled to PTX for compute_80 (make ptx); the PTX is committed beside
// this file and embedded in the Go binary, which JIT-loads it through the
// driver at run time. The emulated driver (tests/cudaemu) compiles this
// same file for the host.
//
// Conventions: 1-D grids with grid-stride loops; graphs in extended CSR
// (xadj int64[n+1], adj int32[2m], edge weights int32[2m], int64[2m] or
// none (all 1), vw int64[n], src int32[2m]); per-vertex vectors int32,
// flags uint8. Every decision depends
// only on values, never on the order in which threads run, so results are
// deterministic: atomics only add integers, take maxima, or claim hash
// slots whose final contents are sorted before use.
//
// Kernels that use __syncthreads or __shared__ ("team" kernels:
// block_weights and the kernels whose last block finishes the step,
// scan_up, jet_cost, reb_cand, reb_hist, reb_evict, reb_over) run with
// blocks of at most TEAM threads; everything else is barrier-free and
// runs with any block size.
#include <stdint.h>

#define GRID_LOOP(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
                             i += (long long)blockDim.x * gridDim.x)
#define TID ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#define NTHREADS ((long long)blockDim.x * gridDim.x)

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned char u8;

#ifdef __CUDACC__
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

#define TEAM 256 // the largest block of a team kernel
#define NB 66    // loss buckets: gain > 0, gain == 0, then 2 + floor(log2(-gain))

__device__ __forceinline__ u64 pair_noise(u64 seed, int u, int v) {
    if (u > v) { int t = u; u = v; v = t; }
    return ((((u64)(unsigned)u << 32) | (u64)(unsigned)v) ^ seed) * 0x9e3779b97f4a7c15ULL;
}

__device__ __forceinline__ u64 splitmix(u64 x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Edge weights come 32-bit (ew32), 64-bit (ew64) or not at all (every
// weight 1): WT is the pair of parameters, W(e) the weight of edge e.
#define WT const int *ew32, const i64 *ew64
#define W(e) (ew32 ? (i64)ew32[e] : ew64 ? ew64[e] : (i64)1)

__device__ __forceinline__ double rating(i64 w, i64 cu, i64 cv) {
    double fw = (double)w;
    return fw * fw / ((double)(cu > 1 ? cu : 1) * (double)(cv > 1 ? cv : 1));
}

// take_ticket (thread 0 of each block, once the block's work is done)
// says whether the block is the last of its launch to finish; the last
// one resets the count for the next launch. The fences make every other
// block's writes visible to the last one, which then does the work that
// was a launch of its own after this one: a launch costs 8.5 us on an
// H200, and the Jet loop's small steps (the statistics, the cut bucket,
// the crossing bin) made a third of its launches.
__device__ __forceinline__ int take_ticket(u64 *ticket) {
    __threadfence();
    const int last = atomicAdd((unsigned long long *)ticket, 1ULL) == (unsigned long long)gridDim.x - 1;
    if (last) {
        *ticket = 0;
        __threadfence();
    }
    return last;
}

// ---------------------------------------------------------------- scan ---
//
// Exclusive prefix sums of a[0..n) in two launches: scan_up sums each
// thread's contiguous chunk of per elements and its last block
// (take_ticket) scans those partial sums, scan_down rescans every chunk
// from its offset. Two barrier-free passes over a, and one block's work
// (a launch of its own, scan_mid, until it moved into scan_up).
//
// The last block's thread t owns the chunks t*q .. t*q+q-1 (q = chunks /
// block size); their sums are stored transposed, chunk t*q+j at
// part[j*T + t], so that the block's loads are coalesced: one block
// reading its threads' contiguous runs moved a 32-byte sector per 8 bytes
// and ran at 8 GB/s on an H200 (15x its bytes' time).

__device__ __forceinline__ i64 scan_slot(i64 chunk, i64 chunks, int team) {
    const i64 q = chunks / team;
    return (chunk % q) * team + chunk / q;
}

// *total receives the sum. Every block must be full (np = gridDim.x *
// blockDim.x partial sums, at most TEAM threads a block).
#define SBATCH 16 // loads in flight per thread
extern "C" __global__ void scan_up(const i64 *a, i64 n, i64 per, i64 *part, i64 *total, u64 *ticket) {
    {
        i64 lo = TID * per, hi = lo + per < n ? lo + per : n, s = 0;
        for (i64 i = lo; i < hi; i++) s += a[i];
        part[scan_slot(TID, NTHREADS, blockDim.x)] = s;
    }
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = take_ticket(ticket);
    __syncthreads();
    if (!last) return;
    __shared__ i64 s[TEAM];
    __shared__ i64 g[16];
    const int t = threadIdx.x, T = blockDim.x, q = (int)(NTHREADS / T);
    i64 sum = 0;
    for (int j0 = 0; j0 < q; j0 += SBATCH) {
        i64 x[SBATCH];
        UNROLL
        for (int i = 0; i < SBATCH; i++) x[i] = j0 + i < q ? part[(i64)(j0 + i) * T + t] : 0;
        UNROLL
        for (int i = 0; i < SBATCH; i++) sum += x[i];
    }
    s[t] = sum;
    __syncthreads();
    const int gs = (T + 15) / 16; // threads per group
    if (t < 16) {
        i64 acc = 0;
        for (int i = t * gs; i < (t + 1) * gs && i < T; i++) { i64 x = s[i]; s[i] = acc; acc += x; }
        g[t] = acc;
    }
    __syncthreads();
    if (t == 0) {
        i64 acc = 0;
        for (int i = 0; i < 16; i++) { i64 x = g[i]; g[i] = acc; acc += x; }
        *total = acc;
    }
    __syncthreads();
    i64 acc = s[t] + g[t / gs];
    for (int j0 = 0; j0 < q; j0 += SBATCH) {
        i64 x[SBATCH];
        UNROLL
        for (int i = 0; i < SBATCH; i++) x[i] = j0 + i < q ? part[(i64)(j0 + i) * T + t] : 0;
        UNROLL
        for (int i = 0; i < SBATCH; i++)
            if (j0 + i < q) {
                part[(i64)(j0 + i) * T + t] = acc;
                acc += x[i];
            }
    }
}

extern "C" __global__ void scan_down(i64 *a, i64 n, i64 per, const i64 *part, int team) {
    i64 lo = TID * per, hi = lo + per < n ? lo + per : n, acc = part[scan_slot(TID, NTHREADS, team)];
    for (i64 i = lo; i < hi; i++) { i64 x = a[i]; a[i] = acc; acc += x; }
}

// ------------------------------------------------------------ helpers ---

extern "C" __global__ void edge_sources(const i64 *xadj, int *src, int n) {
    GRID_LOOP(v, n) for (i64 e = xadj[v]; e < xadj[v + 1]; e++) src[e] = (int)v;
}

// ----------------------------------------------------------- matching ---

// Every unmatched vertex names its best-rated unmatched neighbour (exp*2,
// ties by pair noise) whose pair stays within maxw. Thread 0 clears
// match_resolve's count (a memset of its own cost a launch).
extern "C" __global__ void match_prefer(const i64 *xadj, const int *adj, WT, const i64 *vw,
                                        const int *match, int *pref, int n, i64 maxw, u64 seed,
                                        unsigned long long *count) {
    if (TID == 0) *count = 0;
    GRID_LOOP(v, n) {
        int best = -1;
        double br = -1;
        u64 bh = 0;
        if (match[v] < 0) {
            i64 cv = vw[v];
            for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
                int u = adj[e];
                if (match[u] >= 0 || cv + vw[u] > maxw) continue;
                double r = rating(W(e), cv, vw[u]);
                if (r >= br) {
                    u64 h = pair_noise(seed, (int)v, u);
                    if (r > br || h > bh) { best = u; br = r; bh = h; }
                }
            }
        }
        pref[v] = best;
    }
}

// Mutual preferences become matches; *count receives how many vertices
// were matched.
extern "C" __global__ void match_resolve(const int *pref, int *match, int n, unsigned long long *count) {
    GRID_LOOP(v, n) {
        int u = pref[v];
        if (u >= 0 && pref[u] == (int)v) {
            match[v] = u;
            atomicAdd(count, 1ULL);
        }
    }
}

// Two-hop matching (coarsening.TwoHop's twoHop, in three steps: leaves,
// twins, relatives). Every unmatched vertex names the vertex that groups
// it (step 0: a leaf's only neighbour; 1: a vertex's smallest neighbour,
// with the hash of its neighbourhood as twin key; 2: its heaviest
// neighbour, the first in adjacency order on ties) and flags it
// (ismaker, zeroed before).
extern "C" __global__ void hop_key(int step, const i64 *xadj, const int *adj, WT, const int *match,
                                   int *owner, i64 *tkey, int *ismaker, int n) {
    GRID_LOOP(v, n) {
        int o = -1;
        i64 d = xadj[v + 1] - xadj[v];
        if (match[v] < 0 && d > 0) {
            if (step == 0) {
                if (d == 1) o = adj[xadj[v]];
            } else if (step == 1) {
                u64 h = 0;
                for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
                    h += splitmix((u64)adj[e] + 1); // order independent
                    if (o < 0 || adj[e] < o) o = adj[e];
                }
                tkey[v] = (i64)((h ^ (u64)d << 56) >> 1);
            } else {
                i64 bw = -1;
                for (i64 e = xadj[v]; e < xadj[v + 1]; e++)
                    if (W(e) > bw) { bw = W(e); o = adj[e]; }
            }
        }
        owner[v] = o;
        if (o >= 0) ismaker[o] = 1;
    }
}

// before orders a group: by twin key (step 1), then by id.
__device__ __forceinline__ bool before(int step, const i64 *tkey, int a, int b) {
    if (step == 1 && tkey[a] != tkey[b]) return tkey[a] < tkey[b];
    return a < b;
}

__device__ void sift_group(int step, const i64 *tkey, int *m, i64 i, i64 len) {
    for (;;) {
        i64 c = 2 * i + 1;
        if (c >= len) return;
        if (c + 1 < len && before(step, tkey, m[c], m[c + 1])) c++;
        if (!before(step, tkey, m[i], m[c])) return;
        int t = m[i]; m[i] = m[c]; m[c] = t;
        i = c;
    }
}

// Every flagged vertex gathers the vertices it groups (its neighbours that
// named it) in the scratch range of its edges, sorts them (heap sort) and
// pairs each with the next one of the same key whose weight fits; one
// that fits with none is skipped: the CPU's stable sort by key and scan,
// group by group. Linear in the degree but for the sort; each vertex has
// one owner, so threads never share writes.
extern "C" __global__ void hop_pair(int step, const i64 *xadj, const int *adj, const i64 *vw, const int *owner,
                                    const i64 *tkey, const int *ismaker, int *scratch, int *match, int n, i64 maxw) {
    GRID_LOOP(m, n) {
        if (!ismaker[m]) continue;
        int *g = scratch + xadj[m];
        i64 len = 0;
        for (i64 e = xadj[m]; e < xadj[m + 1]; e++)
            if (owner[adj[e]] == (int)m) g[len++] = adj[e];
        for (i64 i = len / 2 - 1; i >= 0; i--) sift_group(step, tkey, g, i, len);
        for (i64 end = len - 1; end > 0; end--) {
            int t = g[0]; g[0] = g[end]; g[end] = t;
            sift_group(step, tkey, g, 0, end);
        }
        for (i64 i = 0; i + 1 < len;) {
            int a = g[i], b = g[i + 1];
            if ((step != 1 || tkey[a] == tkey[b]) && vw[a] + vw[b] <= maxw) {
                match[a] = b;
                match[b] = a;
                i += 2;
            } else {
                i++;
            }
        }
    }
}

extern "C" __global__ void match_self(int *match, int n) {
    GRID_LOOP(v, n) if (match[v] < 0) match[v] = (int)v;
}

// ---------------------------------------------------------- contraction ---

extern "C" __global__ void cmap_flags(const int *match, i64 *flags, int n) {
    GRID_LOOP(v, n) flags[v] = match[v] >= (int)v ? 1 : 0;
}

extern "C" __global__ void cmap_fill(const int *match, const i64 *flags, int *cmap, int *leaders, int n) {
    GRID_LOOP(v, n) if (match[v] >= (int)v) {
        int c = (int)flags[v];
        cmap[v] = c;
        leaders[c] = (int)v;
    }
}

extern "C" __global__ void cmap_partner(const int *match, int *cmap, int n) {
    GRID_LOOP(v, n) if (match[v] < (int)v) cmap[v] = cmap[match[v]];
}

// Upper bound of every coarse degree (the members' degrees) and the coarse
// vertex weights.
extern "C" __global__ void contract_bounds(const i64 *xadj, const i64 *vw, const int *match, const int *leaders,
                                           i64 *bound, i64 *cvw, int nc) {
    GRID_LOOP(c, nc) {
        int v = leaders[c], u = match[v];
        i64 b = xadj[v + 1] - xadj[v], w = vw[v];
        if (u != v) { b += xadj[u + 1] - xadj[u]; w += vw[u]; }
        bound[c] = b;
        cvw[c] = w;
    }
}

// Algorithm 3 of the paper: every fine edge hashes its coarse neighbour
// into the coarse source's slot range [off[cu], off[cu+1]) with
// compare-and-swap and adds its weight there. Which slot a neighbour gets
// depends on the order of the threads, so each slot also keeps the first
// position (leader's edges, then the partner's) that reached it: the
// coarse adjacency lists come out in order of first occurrence, the CPU's
// order (coarsening.Contract), whatever the threads did.
extern "C" __global__ void contract_insert(const i64 *xadj, const int *src, const int *adj, WT,
                                           const int *cmap, const int *leaders, const i64 *off, int *hv, i64 *hw,
                                           int *hp, i64 m2) {
    GRID_LOOP(e, m2) {
        int s = src[e], cu = cmap[s], cv = cmap[adj[e]];
        if (cu == cv) continue;
        int l = leaders[cu];
        int pos = (int)(e - xadj[s]) + (s == l ? 0 : (int)(xadj[l + 1] - xadj[l]));
        i64 lo = off[cu], len = off[cu + 1] - lo;
        i64 j = (i64)(((u64)(unsigned)cv * 0x9e3779b97f4a7c15ULL) % (u64)len);
        for (i64 probe = 0; probe < len; probe++) {
            int old = atomicCAS(&hv[lo + j], -1, cv);
            if (old == -1 || old == cv) {
                atomicAdd((unsigned long long *)&hw[lo + j], (unsigned long long)W(e));
                atomicMin(&hp[lo + j], pos);
                break;
            }
            if (++j == len) j = 0;
        }
    }
}

extern "C" __global__ void contract_count(const int *hv, const i64 *off, i64 *cnt, int nc) {
    GRID_LOOP(c, nc) {
        i64 k = 0;
        for (i64 j = off[c]; j < off[c + 1]; j++) k += hv[j] >= 0;
        cnt[c] = k;
    }
}

// sift_down restores the max-heap (by pos) of entries [0, len) below i.
__device__ void sift_down(int *pos, int *key, i64 *w, i64 i, i64 len) {
    for (;;) {
        i64 c = 2 * i + 1;
        if (c >= len) return;
        if (c + 1 < len && pos[c + 1] > pos[c]) c++;
        if (pos[i] >= pos[c]) return;
        int tp = pos[i]; pos[i] = pos[c]; pos[c] = tp;
        int tk = key[i]; key[i] = key[c]; key[c] = tk;
        i64 tw = w[i]; w[i] = w[c]; w[c] = tw;
        i = c;
    }
}

// Writes every coarse vertex's adjacency list in order of first position,
// with 32-bit weights (cew32: the coarse graph of a graph whose weights
// total at most 2^31-1) or 64-bit ones. The positions of a row are
// distinct and below its slot count (a position is a member's edge), so a
// row of at most 64 slots sorts by a 64-bit mask of its positions: an
// entry's place is the number of positions below its own. Rows up to
// CMASK*64 slots do the same with a mask of CMASK words; longer ones (hubs)
// are compacted in place and heap sorted. A one-thread sort through global
// memory had every step wait for the one before (measured on an H200: 20x
// its bytes' time); the mask reads each slot twice, with no dependence
// between slots.
#define CMASK 16
extern "C" __global__ void contract_compact(int *hv, i64 *hw, int *hp, const i64 *off, const i64 *cxadj,
                                            int *cadj, int *cew32, i64 *cew64, int nc) {
    GRID_LOOP(c, nc) {
        const i64 lo = off[c], len = off[c + 1] - lo, o = cxadj[c];
        int *key = hv + lo, *pos = hp + lo;
        i64 *w = hw + lo;
        if (len <= 64) {
            u64 mask = 0;
            for (i64 j = 0; j < len; j++)
                if (key[j] >= 0) mask |= 1ULL << pos[j];
            for (i64 j = 0; j < len; j++) {
                const int kk = key[j];
                if (kk < 0) continue;
                const i64 r = o + __popcll(mask & ((1ULL << pos[j]) - 1));
                cadj[r] = kk;
                if (cew32) cew32[r] = (int)w[j];
                else cew64[r] = w[j];
            }
            continue;
        }
        if (len <= CMASK * 64) {
            u64 mask[CMASK];
            int below[CMASK];
            const int words = (int)((len + 63) >> 6);
            for (int i = 0; i < words; i++) mask[i] = 0;
            for (i64 j = 0; j < len; j++)
                if (key[j] >= 0) mask[pos[j] >> 6] |= 1ULL << (pos[j] & 63);
            for (int i = 0, acc = 0; i < words; i++) {
                below[i] = acc;
                acc += __popcll(mask[i]);
            }
            for (i64 j = 0; j < len; j++) {
                const int kk = key[j];
                if (kk < 0) continue;
                const int p = pos[j];
                const i64 r = o + below[p >> 6] + __popcll(mask[p >> 6] & ((1ULL << (p & 63)) - 1));
                cadj[r] = kk;
                if (cew32) cew32[r] = (int)w[j];
                else cew64[r] = w[j];
            }
            continue;
        }
        i64 n = 0;
        for (i64 j = 0; j < len; j++)
            if (key[j] >= 0) { key[n] = key[j]; w[n] = w[j]; pos[n] = pos[j]; n++; }
        for (i64 i = n / 2 - 1; i >= 0; i--) sift_down(pos, key, w, i, n);
        for (i64 end = n - 1; end > 0; end--) {
            int tp = pos[0]; pos[0] = pos[end]; pos[end] = tp;
            int tk = key[0]; key[0] = key[end]; key[end] = tk;
            i64 tw = w[0]; w[0] = w[end]; w[end] = tw;
            sift_down(pos, key, w, 0, end);
        }
        for (i64 i = 0; i < n; i++) {
            cadj[o + i] = key[i];
            if (cew32) cew32[o + i] = (int)w[i];
            else cew64[o + i] = w[i];
        }
    }
}

extern "C" __global__ void project(const int *cmap, const int *coarse, int *fine, int n) {
    GRID_LOOP(v, n) fine[v] = coarse[cmap[v]];
}

// ----------------------------------------------------- J and refinement ---

// dist[b] is the distance implied by highest differing label bit b.
__device__ __forceinline__ i64 D(const u64 *labels, const i64 *dist, int a, int b) {
    u64 x = labels[a] ^ labels[b];
    return x ? dist[63 - __clzll((long long)x)] : 0;
}

// gather writes v's connectivity to its adjacent blocks (block, weight)
// into cb/cw from base on and returns their count. With moving,
// neighbours that moving[] marks count at their destination when they rank
// before v (higher gain, then lower id), else at their block before the
// step, old[] (part[] of a marked vertex may change while this runs).
//
// The slots are the thread's own table (LSLOTS entries, in registers or
// local memory) when v has at most LSLOTS neighbours, else v's range of
// the scratch arrays (base = xadj[v]): a table in device memory, written
// and read back by one thread at addresses far from its neighbours', made
// 24 of the 32 bytes per edge of jet_lp (2-3x its modelled time on an
// H200).
#define LSLOTS 16
__device__ int gather(int v, const i64 *xadj, const int *adj, WT, const int *part, int *cb, i64 *cw, i64 base,
                      const int *dest, const int *old, const u8 *moving, const i64 *gain) {
    int t = 0;
    for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
        int u = adj[e];
        int b;
        if (moving && moving[u]) b = gain[u] > gain[v] || (gain[u] == gain[v] && u < v) ? dest[u] : old[u];
        else b = part[u];
        int i = 0;
        while (i < t && cb[base + i] != b) i++;
        if (i == t) { cb[base + t] = b; cw[base + t] = 0; t++; }
        cw[base + i] += W(e);
    }
    return t;
}

// adjacent is gather for the kernels that rate v's moves (jet_lp,
// jet_after, reb_cand), one function so that they read the same table
// the same way: into the caller's own slots (ob, ow) when v has at most
// LSLOTS neighbours, else into v's range of the scratch arrays cb/cw.
// *tb, *tw and *base say where the table went.
__device__ __forceinline__ int adjacent(int v, const i64 *xadj, const int *adj, WT, const int *part, int *ob, i64 *ow,
                                        int *cb, i64 *cw, int **tb, i64 **tw, i64 *base, const int *dest,
                                        const int *old, const u8 *moving, const i64 *gain) {
    const bool own = xadj[v + 1] - xadj[v] <= LSLOTS;
    *tb = own ? ob : cb;
    *tw = own ? ow : cw;
    *base = own ? 0 : xadj[v];
    return gather(v, xadj, adj, ew32, ew64, part, *tb, *tw, *base, dest, old, moving, gain);
}

__device__ i64 cost_at(int b, i64 base, int t, const int *cb, const i64 *cw, const u64 *labels, const i64 *dist) {
    i64 c = 0;
    for (int i = 0; i < t; i++)
        if (cb[base + i] != b) c += cw[base + i] * D(labels, dist, b, cb[base + i]);
    return c;
}

// best_block picks, among v's t adjacent blocks other than p (and, when
// room is given, with room[b] != 0), the one of highest gain cur - cost,
// lowest block id on ties; -1 when there is none.
__device__ int best_block(int p, i64 cur, i64 base, int t, const int *cb, const i64 *cw, const u64 *labels,
                          const i64 *dist, const int *room, i64 *bestGain) {
    int best = -1;
    i64 bg = 0;
    for (int i = 0; i < t; i++) {
        int b = cb[base + i];
        if (b == p || (room && !room[b])) continue;
        i64 g = cur - cost_at(b, base, t, cb, cw, labels, dist);
        if (best < 0 || g > bg || (g == bg && b < best)) { best = b; bg = g; }
    }
    *bestGain = bg;
    return best;
}

// The blocks' weights (bw zeroed before). One global atomic per vertex
// ran at about 4 G atomics/s into the k addresses (14x its bytes' time on
// an H200 for k = 192, more for the 4 to 8 blocks of a GPU-HM split), so
// each block of threads adds up a contiguous range of vertices in shared
// memory first (neighbouring ids tend to share a PE: few PEs per range)
// and adds one total per PE it met to bw; before that every thread keeps
// a table in registers (at most BWK PEs) or adds per run of one PE. A team
// kernel, launched with two blocks per SM. With more than BWSH PEs it adds
// per run of one PE straight into bw.
#define BWK 8
#define BWSH 1024
// add_runs adds the weights of vertices lo + t, lo + t + T, ... below hi
// into to[their PE], one atomic per run of one PE: to is the block's
// shared table or bw itself.
__device__ __forceinline__ void add_runs(const int *part, const i64 *vw, i64 *to, i64 lo, i64 hi, int t, int T) {
    int cur = -1;
    i64 acc = 0;
    for (i64 v = lo + t; v < hi; v += T) {
        const int p = part[v];
        if (p != cur) {
            if (acc) atomicAdd((unsigned long long *)&to[cur], (unsigned long long)acc);
            cur = p;
            acc = 0;
        }
        acc += vw[v];
    }
    if (acc) atomicAdd((unsigned long long *)&to[cur], (unsigned long long)acc);
}

extern "C" __global__ void block_weights(const int *part, const i64 *vw, i64 *bw, int n, int k) {
    __shared__ i64 sh[BWSH];
    const int t = threadIdx.x, T = blockDim.x;
    const i64 chunk = (n + gridDim.x - 1) / gridDim.x, lo = blockIdx.x * chunk,
              hi = lo + chunk < n ? lo + chunk : n;
    if (k > BWSH) {
        add_runs(part, vw, bw, lo, hi, t, T);
        return;
    }
    for (int b = t; b < k; b += T) sh[b] = 0;
    __syncthreads();
    if (k <= BWK) {
        i64 r[BWK] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (i64 v = lo + t; v < hi; v += T) {
            const int p = part[v];
            const i64 w = vw[v];
            UNROLL
            for (int b = 0; b < BWK; b++) r[b] += p == b ? w : 0;
        }
        UNROLL
        for (int b = 0; b < BWK; b++)
            if (r[b]) atomicAdd((unsigned long long *)&sh[b], (unsigned long long)r[b]);
    } else { // a thread's vertices of a range tend to share a PE
        add_runs(part, vw, sh, lo, hi, t, T);
    }
    __syncthreads();
    for (int b = t; b < k; b += T)
        if (sh[b]) atomicAdd((unsigned long long *)&bw[b], (unsigned long long)sh[b]);
}

// The loop's control block on the device. The host reads its first seven
// words once per iteration.
struct jet_ctl {
    i64 J, excess, maxbw;             // the mapping's cost, weight above lmax, heaviest block
    i64 moved, cands, degMoved, degCands; // the last step's moves and candidates, and their degrees
    i64 avg, sigma;                   // c(V)/k and the rebalancing threshold
    i64 nroom;                        // blocks below sigma in this rebalancing round
    u64 round;                        // rebalancing rounds with room (hash seeds)
    u64 ticket;                       // blocks of a launch done so far (take_ticket)
};

#define SPREAD 1024 // accumulators per sum, against atomic contention

// J's partial sums, spread over SPREAD accumulators per sum: from scratch
// (full: each edge once), or the change made by the last step (moved
// vertices hold their old block in old: jet_after's old, rebalancing's
// dest; an edge between two moved
// vertices counts at the smaller one). The delta pass also counts the
// step's moves and candidates, and their degrees.
//
// The last block to finish (take_ticket) then adds up the accumulators
// (and clears them), the excess over lmax, the heaviest block, avg and
// sigma (refinement's RebalanceTargets rule), into ctl. When some block is
// overloaded (a rebalancing round follows), it also lists the blocks
// below sigma (room, roomList, ctl->nroom); with segments of seg < k
// blocks, a block's sigma follows its segment's average. A team kernel.
extern "C" __global__ void jet_cost(int full, const i64 *xadj, const int *adj, WT, const int *part,
                                    const u64 *labels, const i64 *dist, const u8 *moved, const u8 *cand,
                                    const int *old, i64 *spread, int n, const i64 *bw, int k, int seg, i64 lmax,
                                    int *room, int *roomList, jet_ctl *ctl) {
    {
        i64 j = 0, nm = 0, nc = 0, dm = 0, dc = 0;
        GRID_LOOP(v, n) {
            if (full) {
                int pv = part[v];
                for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
                    int u = adj[e];
                    if (u > (int)v) j += W(e) * D(labels, dist, pv, part[u]);
                }
                continue;
            }
            if (cand[v]) {
                nc++;
                dc += xadj[v + 1] - xadj[v];
            }
            if (!moved[v]) continue;
            nm++;
            dm += xadj[v + 1] - xadj[v];
            int pv = part[v], ov = old[v];
            for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
                int u = adj[e];
                bool mu = moved[u] != 0;
                if (mu && u < (int)v) continue;
                int pu = part[u], ou = mu ? old[u] : pu;
                j += W(e) * (D(labels, dist, pv, pu) - D(labels, dist, ov, ou));
            }
        }
        const long long slot = TID % SPREAD;
        i64 sums[5] = {j, nm, nc, dm, dc};
        for (int i = 0; i < 5; i++)
            if (sums[i]) atomicAdd((unsigned long long *)&spread[i * SPREAD + slot], (unsigned long long)sums[i]);
    }
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = take_ticket(&ctl->ticket);
    __syncthreads();
    if (!last) return;

    __shared__ i64 s[8][TEAM];
    __shared__ i64 r[8][16];
    __shared__ i64 sigma, excess;
    const int t = threadIdx.x, T = blockDim.x;
    i64 x[8] = {0, 0, 0, 0, 0, 0, 0, 0}; // 5 sums, excess, max, total weight
    for (int i = 0; i < 5; i++)
        for (int a = t; a < SPREAD; a += T) {
            x[i] += spread[i * SPREAD + a];
            spread[i * SPREAD + a] = 0;
        }
    for (int b = t; b < k; b += T) {
        i64 w = bw[b];
        if (w > lmax) x[5] += w - lmax;
        if (w > x[6]) x[6] = w;
        x[7] += w;
    }
    for (int i = 0; i < 8; i++) s[i][t] = x[i];
    __syncthreads();
    // 8 x 16 partial results of gs threads each, then thread 0 adds those
    // up (one thread over all 8 x T took longer than the rest together).
    const int gs = (T + 15) / 16;
    for (int task = t; task < 8 * 16; task += T) {
        const int i = task / 16, lo = (task % 16) * gs, hi = lo + gs < T ? lo + gs : T;
        i64 acc = 0;
        for (int a = lo; a < hi; a++) acc = i == 6 ? (s[6][a] > acc ? s[6][a] : acc) : acc + s[i][a];
        r[i][task % 16] = acc;
    }
    __syncthreads();
    if (t == 0) {
        for (int i = 0; i < 8; i++) {
            x[i] = 0;
            for (int a = 0; a < 16; a++) x[i] = i == 6 ? (r[6][a] > x[6] ? r[6][a] : x[6]) : x[i] + r[i][a];
        }
        ctl->J = full ? x[0] : ctl->J + x[0];
        ctl->moved = x[1];
        ctl->cands = x[2];
        ctl->degMoved = x[3];
        ctl->degCands = x[4];
        ctl->excess = x[5];
        ctl->maxbw = x[6];
        i64 avg = x[7] / k, sg = lmax - (lmax / 100 > 1 ? lmax / 100 : 1);
        ctl->avg = avg;
        ctl->sigma = sigma = sg < avg ? lmax : sg;
        excess = x[5];
        ctl->nroom = 0;
    }
    __syncthreads();
    if (excess == 0) return; // the same for every thread of the block
    const int per = (k + T - 1) / T, lo = t * per < k ? t * per : k, hi = lo + per < k ? lo + per : k;
    i64 cnt = 0;
    for (int b = lo; b < hi; b++) {
        i64 sg = sigma;
        if (seg < k) {
            const int f = b / seg * seg, e = f + seg < k ? f + seg : k;
            i64 tot = 0;
            for (int c = f; c < e; c++) tot += bw[c];
            sg = lmax - (lmax / 100 > 1 ? lmax / 100 : 1);
            if (sg < tot / (e - f)) sg = lmax;
        }
        room[b] = bw[b] < sg;
        cnt += room[b];
    }
    s[0][t] = cnt;
    __syncthreads();
    if (t < 16) { // scan_mid's two-level scan of the counts
        i64 acc = 0;
        for (int i = t * gs; i < (t + 1) * gs && i < T; i++) { i64 c = s[0][i]; s[0][i] = acc; acc += c; }
        r[0][t] = acc;
    }
    __syncthreads();
    if (t == 0) {
        i64 acc = 0;
        for (int i = 0; i < 16; i++) { i64 c = r[0][i]; r[0][i] = acc; acc += c; }
        ctl->nroom = acc;
    }
    __syncthreads();
    i64 at = s[0][t] + r[0][t / gs];
    for (int b = lo; b < hi; b++)
        if (room[b]) roomList[at++] = b;
}

// Algorithm 4, first pass: the best adjacent block ignoring balance; moves
// of non-negative gain become candidates.
extern "C" __global__ void jet_lp(const i64 *xadj, const int *adj, WT, const int *part,
                                  const u64 *labels, const i64 *dist, const u8 *locked, int *cb, i64 *cw,
                                  u8 *cand, int *dest, i64 *gain, int *old, int n) {
    GRID_LOOP(v, n) {
        cand[v] = 0;
        if (locked[v]) continue;
        int ob[LSLOTS], *tb, t;
        i64 ow[LSLOTS], *tw, base;
        t = adjacent((int)v, xadj, adj, ew32, ew64, part, ob, ow, cb, cw, &tb, &tw, &base, 0, 0, 0, 0);
        int p = part[v];
        i64 cur = cost_at(p, base, t, tb, tw, labels, dist);
        i64 bg;
        int best = best_block(p, cur, base, t, tb, tw, labels, dist, 0, &bg);
        if (best >= 0 && bg >= 0) { cand[v] = 1; dest[v] = best; gain[v] = bg; old[v] = p; }
    }
}

// The afterburner: re-evaluate each candidate as if every candidate ranked
// before it (higher gain, then lower id) had moved; non-negative ones
// move (their old block stays in old[], which jet_cost reads), lock for
// one iteration and update the block weights. A vertex reads its
// neighbours' blocks before the step from old[], so that the moves made
// during the launch change no decision (a launch of its own, jet_apply,
// moved them until it came here).
extern "C" __global__ void jet_after(const i64 *xadj, const int *adj, WT, int *part,
                                     const u64 *labels, const i64 *dist, const u8 *cand, const int *dest,
                                     const i64 *gain, const int *old, int *cb, i64 *cw, u8 *moved, u8 *locked,
                                     const i64 *vw, i64 *bw, int n) {
    GRID_LOOP(v, n) {
        moved[v] = 0;
        locked[v] = 0;
        if (!cand[v]) continue;
        int ob[LSLOTS], *tb, t;
        i64 ow[LSLOTS], *tw, base;
        t = adjacent((int)v, xadj, adj, ew32, ew64, part, ob, ow, cb, cw, &tb, &tw, &base, dest, old, cand, gain);
        const int p = old[v], d = dest[v];
        if (cost_at(p, base, t, tb, tw, labels, dist) - cost_at(d, base, t, tb, tw, labels, dist) >= 0) {
            moved[v] = 1;
            locked[v] = 1;
            const i64 w = vw[v];
            atomicAdd((unsigned long long *)&bw[p], (unsigned long long)-w);
            atomicAdd((unsigned long long *)&bw[d], (unsigned long long)w);
            part[v] = d;
        }
    }
}

// ------------------------------------------------------- rebalancing ---
//
// Weak and strong rebalancing (Algorithm 5 and its strong variant) with
// the CPU backend's rule (refinement.SelectRebalance), entirely on the
// device. jet_cost has listed the blocks below sigma. Every vertex of an
// overloaded block that is not too heavy picks a destination and files
// its loss in a bucket of its block (reb_cand);
// each block moves the cheapest buckets that cover its excess, and of the
// bucket that crosses it the vertices of lowest id (reb_cut finds the
// bucket, reb_hist and reb_refine narrow the crossing vertex down by id,
// bins at a time, to a window of at most 256 ids, reb_evict moves and
// finds the crossing vertex in the window itself: before_crossing). Strong rebalancing then lets every
// destination accept, cheapest first, what fits below lmax (the same
// search keyed by destination) and spreads the rest over the room left
// in the other blocks, in id order (reb_over, a scan, reb_place).

// The first index of the sorted a[0..n) whose value is at least x.
__device__ __forceinline__ int lower_bound(const int *a, int n, int x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

__device__ __forceinline__ int loss_bucket(i64 g) {
    if (g > 0) return 0;
    if (g == 0) return 1;
    return 2 + 63 - __clzll((long long)-g);
}

// Rebalancing candidates (clears the locks of label propagation): vertices
// of overloaded blocks that are not too heavy (2 c(v) <= 3 (c(block) -
// avg)) pick the best adjacent block below sigma, else the block of
// roomList drawn by splitmix(v ^ seed of the round) among those in their
// block's segment of seg blocks (none there: no candidate); their weight
// goes to kw[block][loss bucket], their block to key. With tail, the last block then finds
// every block's cut bucket (cut_keys, mode 0).
__device__ void cut_keys(i64 b0, i64 step, int mode, i64 *kw, const i64 *bw, i64 lmax, int *cut, i64 *need, i64 *lo,
                         i64 *accepted, jet_ctl *ctl, int k);
extern "C" __global__ void reb_cand(const i64 *xadj, const int *adj, WT, const i64 *vw, const int *part,
                                    const u64 *labels, const i64 *dist, const i64 *bw, i64 lmax,
                                    const int *room, const int *roomList, jet_ctl *ctl, u64 seed, int seg,
                                    int *cb, i64 *cw, u8 *locked, u8 *cand, int *dest, u8 *bucket, int *key, i64 *kw,
                                    int n, int tail, int *cut, i64 *need, i64 *lo, i64 *accepted, int k) {
    const int nroom = (int)ctl->nroom;
    const i64 avg = ctl->avg;
    const u64 rseed = seed ^ (ctl->round + 1) * 0x9e3779b97f4a7c15ULL; // refinement.RebalanceSeed; reb_cut advances round
    GRID_LOOP(v, n) {
        locked[v] = 0;
        cand[v] = 0;
        if (nroom == 0) continue;
        int p = part[v];
        i64 w = vw[v];
        if (bw[p] <= lmax || w == 0 || 2 * w > 3 * (bw[p] - avg)) continue;
        int ob[LSLOTS], *tb, t;
        i64 ow[LSLOTS], *tw, base;
        t = adjacent((int)v, xadj, adj, ew32, ew64, part, ob, ow, cb, cw, &tb, &tw, &base, 0, 0, 0, 0);
        i64 cur = cost_at(p, base, t, tb, tw, labels, dist);
        i64 bg;
        int best = best_block(p, cur, base, t, tb, tw, labels, dist, room, &bg);
        if (best < 0) {
            const int first = p / seg * seg;
            const int lo = lower_bound(roomList, nroom, first), hi = lower_bound(roomList, nroom, first + seg);
            if (lo == hi) continue;
            best = roomList[lo + (int)(splitmix((u64)v ^ rseed) % (u64)(hi - lo))];
            bg = cur - cost_at(best, base, t, tb, tw, labels, dist);
        }
        int bk = loss_bucket(bg);
        cand[v] = 1;
        dest[v] = best;
        bucket[v] = (u8)bk;
        key[v] = p; // part[v] changes in reb_evict; before_crossing reads the block here
        atomicAdd((unsigned long long *)&kw[(i64)p * NB + bk], (unsigned long long)w);
    }
    if (!tail) return;
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = take_ticket(&(ctl)->ticket);
    __syncthreads();
    if (last) cut_keys(threadIdx.x, blockDim.x, 0, kw, bw, lmax, cut, need, lo, accepted, ctl, k);
}

// cut_keys: for every key (mode 0: source block, target its excess over lmax; mode
// 1: destination, target its room below lmax plus one) the first bucket
// whose cumulative weight reaches the target (cut; NB when none does, -1
// when the target is not positive), the weight still needed inside it
// (need) and the start of the id search (lo = 0). Clears kw. Mode 0 also
// clears accepted and ends the round's use of ctl->round. The buckets are
// loaded NB/2 at a time before any is used: one thread per key, and a
// load that waits for the one before made this kernel latency-bound
// (5.5x its modelled time on an H200).
__device__ void cut_keys(i64 b0, i64 step, int mode, i64 *kw, const i64 *bw, i64 lmax, int *cut, i64 *need, i64 *lo,
                         i64 *accepted, jet_ctl *ctl, int k) {
    for (i64 b = b0; b < k; b += step) {
        if (mode == 0) {
            accepted[b] = 0;
            if (b == 0 && ctl->nroom > 0) ctl->round++;
        }
        i64 target = mode == 0 ? bw[b] - lmax : lmax - bw[b] + 1;
        int c = target > 0 ? NB : -1;
        i64 cum = 0, nd = 0;
        i64 *row = kw + b * NB;
        for (int i0 = 0; i0 < NB; i0 += NB / 2) {
            i64 x[NB / 2];
            UNROLL
            for (int i = 0; i < NB / 2; i++) x[i] = row[i0 + i];
            UNROLL
            for (int i = 0; i < NB / 2; i++) row[i0 + i] = 0;
            UNROLL
            for (int i = 0; i < NB / 2; i++) {
                if (c == NB && cum + x[i] >= target) { c = i0 + i; nd = target - cum; }
                cum += x[i];
            }
        }
        cut[b] = c;
        need[b] = nd;
        lo[b] = 0;
    }
}

// reb_cut is cut_keys as a launch of its own, for machines of more PEs
// than a block has threads (the kernel before it does it in its last
// block otherwise: tail).
extern "C" __global__ void reb_cut(int mode, i64 *kw, const i64 *bw, i64 lmax, int *cut, i64 *need, i64 *lo,
                                   i64 *accepted, jet_ctl *ctl, int k) {
    cut_keys(TID, NTHREADS, mode, kw, bw, lmax, cut, need, lo, accepted, ctl, k);
}

__device__ void refine_keys(i64 b0, i64 step, i64 *hist, int shift, int bins, const int *cut, i64 *need, i64 *lo,
                            int k);

// One narrowing step: members of the crossing bucket of their key with id
// in [lo, lo + bins << shift) add their weight to bin (v - lo) >> shift.
// Members: mode 0 candidates keyed by their block; mode 1 evicted vertices
// keyed by their destination. With tail, the last block then narrows
// every key's search (refine_keys).
extern "C" __global__ void reb_hist(int mode, const int *part, const int *dest, const u8 *member, const u8 *bucket,
                                    const i64 *vw, const int *cut, i64 *lo, int shift, int bins, i64 *hist,
                                    int n, int tail, i64 *need, int k, jet_ctl *ctl) {
    GRID_LOOP(v, n) {
        if (member[v] != 1) continue;
        int key = mode == 0 ? part[v] : dest[v];
        if ((int)bucket[v] != cut[key]) continue;
        i64 off = v - lo[key];
        if (off < 0 || (off >> shift) >= bins) continue;
        atomicAdd((unsigned long long *)&hist[(i64)key * bins + (off >> shift)], (unsigned long long)vw[v]);
    }
    if (!tail) return;
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = take_ticket(&ctl->ticket);
    __syncthreads();
    if (last) refine_keys(threadIdx.x, blockDim.x, hist, shift, bins, cut, need, lo, k);
}

// refine_keys moves every key's search to the bin where the weight reaches need (and
// takes what the bins before it hold off need); clears the bins. After the
// last step (shift 0), lo is the crossing vertex. One thread per key: the
// bins are loaded RBATCH at a time before any is used, and once the bin is
// found the rest are only cleared. (A loop that loaded one bin, stored its
// zero and tested it waited a memory round trip per bin: 58 us per launch
// for 256 bins on an H200.)
#define RBATCH 32
__device__ void refine_keys(i64 b0, i64 step, i64 *hist, int shift, int bins, const int *cut, i64 *need, i64 *lo,
                            int k) {
    for (i64 b = b0; b < k; b += step) {
        i64 *h = hist + b * bins;
        if (cut[b] < 0 || cut[b] >= NB) continue;
        i64 cum = 0, nd = need[b];
        int found = -1;
        for (int i0 = 0; i0 < bins; i0 += RBATCH) {
            const int m = bins - i0 < RBATCH ? bins - i0 : RBATCH;
            if (found >= 0) {
                for (int i = 0; i < m; i++) h[i0 + i] = 0;
                continue;
            }
            i64 x[RBATCH];
            UNROLL
            for (int i = 0; i < RBATCH; i++) x[i] = i < m ? h[i0 + i] : 0;
            UNROLL
            for (int i = 0; i < RBATCH; i++)
                if (i < m) h[i0 + i] = 0;
            UNROLL
            for (int i = 0; i < RBATCH; i++) {
                if (found < 0 && i < m && cum + x[i] >= nd) { found = i0 + i; nd -= cum; }
                cum += x[i];
            }
        }
        if (found >= 0) need[b] = nd;
        lo[b] += found < 0 ? (i64)bins << shift : (i64)found << shift;
    }
}

// reb_refine is refine_keys as a launch of its own (no tail).
extern "C" __global__ void reb_refine(i64 *hist, int shift, int bins, const int *cut, i64 *need, i64 *lo, int k) {
    refine_keys(TID, NTHREADS, hist, shift, bins, cut, need, lo, k);
}

// before_crossing is the last narrowing step (shift 0) for one member v of
// the crossing bucket c of key: whether v comes before the crossing vertex
// (or is it, with incl), the vertex at which the members' weight in id
// order reaches need. reb_hist has narrowed the search down to the window
// [lo, lo + window) (window at most 2^8: the bins of a step), which holds
// the crossing vertex; v adds up the weight of the members before it in
// the window, RBATCH ids at a time, instead of a histogram launch and its
// refine step: members[u] != 0 with keys[u] == key and bucket c. Nothing
// that it reads changes during the launch that calls it.
__device__ bool before_crossing(i64 v, i64 lo, int window, i64 need, int incl, const u8 *members, const int *keys,
                                int key, const u8 *bucket, int c, const i64 *vw) {
    if (v < lo) return true;
    if (v - lo >= window) return false;
    i64 pre = 0;
    for (i64 u0 = lo; u0 < v; u0 += RBATCH) {
        const int m = v - u0 < RBATCH ? (int)(v - u0) : RBATCH;
        UNROLL
        for (int i = 0; i < RBATCH; i++) {
            const i64 u = u0 + i;
            if (i < m && members[u] && keys[u] == key && (int)bucket[u] == c) pre += vw[u];
        }
    }
    // The crossing vertex is the first whose inclusive prefix reaches need:
    // v is at or before it iff the members before v weigh less.
    return (incl ? pre : pre + vw[v]) < need;
}

// Evicts: candidates of buckets below the cut, and of the cut bucket up to
// the crossing vertex. Weak rebalancing moves them (moved: 1; dest keeps
// the old block); strong marks them (moved: 1) and files them by
// destination and bucket in kw, and with tail the last block finds every
// destination's cut bucket (cut_keys, mode 1).
extern "C" __global__ void reb_evict(int strong, int *part, int *dest, const u8 *cand, const u8 *bucket,
                                     const int *key, int window, const i64 *vw, int *cut, i64 *lo, i64 *bw, i64 *kw,
                                     u8 *moved, int n, int tail, i64 lmax, i64 *need, i64 *accepted, jet_ctl *ctl,
                                     int k) {
    GRID_LOOP(v, n) {
        moved[v] = 0;
        if (!cand[v]) continue;
        int p = part[v], c = cut[p], bk = bucket[v];
        if (!(bk < c || (bk == c && before_crossing(v, lo[p], window, need[p], 1, cand, key, p, bucket, c, vw))))
            continue;
        moved[v] = 1;
        i64 w = vw[v];
        if (strong) {
            atomicAdd((unsigned long long *)&kw[(i64)dest[v] * NB + bk], (unsigned long long)w);
        } else {
            atomicAdd((unsigned long long *)&bw[p], (unsigned long long)-w);
            atomicAdd((unsigned long long *)&bw[dest[v]], (unsigned long long)w);
            part[v] = dest[v];
            dest[v] = p;
        }
    }
    if (!tail) return;
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = take_ticket(&ctl->ticket);
    __syncthreads();
    if (last) cut_keys(threadIdx.x, blockDim.x, 1, kw, bw, lmax, cut, need, lo, accepted, ctl, k);
}

// Strong: evicted vertices that their destination accepts (buckets below
// its cut, and in the cut bucket ids below the crossing vertex, found in
// the window by before_crossing: moved[u] is 1 or 2 there) add to
// accepted[dest]; the others overflow (moved: 2) with their weight in ow
// for the scan that places them. The last block then takes the prefix
// sums over the room left below lmax after the accepted moves (rem[0..k]),
// one block's work (a launch of its own until it came here).
extern "C" __global__ void reb_over(const int *dest, const u8 *bucket, const i64 *vw, const int *cut, const i64 *lo,
                                    const i64 *need, int window, u8 *moved, i64 *accepted, i64 *ow, int n,
                                    const i64 *bw, int k, i64 lmax, i64 *rem, jet_ctl *ctl) {
    GRID_LOOP(v, n) {
        ow[v] = 0;
        if (moved[v] != 1) continue;
        int d = dest[v], c = cut[d], bk = bucket[v];
        if (bk < c || (bk == c && before_crossing(v, lo[d], window, need[d], 0, moved, dest, d, bucket, c, vw))) {
            atomicAdd((unsigned long long *)&accepted[d], (unsigned long long)vw[v]);
        } else {
            moved[v] = 2;
            ow[v] = vw[v];
        }
    }
    __shared__ int last;
    __syncthreads();
    if (threadIdx.x == 0) last = take_ticket(&ctl->ticket);
    __syncthreads();
    if (!last) return;
    __shared__ i64 s[TEAM];
    const int t = threadIdx.x, T = blockDim.x, per = (k + T - 1) / T;
    const int first = t * per < k ? t * per : k, hi = first + per < k ? first + per : k;
    i64 sum = 0;
    for (int b = first; b < hi; b++) {
        i64 r = lmax - bw[b] - accepted[b];
        sum += r > 0 ? r : 0;
    }
    s[t] = sum;
    __syncthreads();
    if (t == 0) {
        i64 acc = 0;
        for (int a = 0; a < T; a++) { i64 c = s[a]; s[a] = acc; acc += c; }
        rem[k] = acc;
    }
    __syncthreads();
    i64 acc = s[t];
    for (int b = first; b < hi; b++) {
        rem[b] = acc;
        i64 r = lmax - bw[b] - accepted[b];
        acc += r > 0 ? r : 0;
    }
}

// Strong: accepted vertices go to their destination; an overflowing vertex
// whose scanned position P (ow) falls in block b's share [rem[b],
// rem[b+1]) of the room goes to b, to its destination when P is past all
// room or b lies in another segment of seg blocks.
extern "C" __global__ void reb_place(int *part, int *dest, const u8 *moved, const i64 *ow, const i64 *rem,
                                     const i64 *vw, i64 *bw, int k, int seg, int n) {
    GRID_LOOP(v, n) {
        if (!moved[v]) continue;
        int d = dest[v];
        if (moved[v] == 2 && ow[v] < rem[k]) {
            int a = 0, b = k - 1; // the largest b with rem[b] <= P
            while (a < b) {
                int mid = (a + b + 1) / 2;
                if (rem[mid] <= ow[v]) a = mid; else b = mid - 1;
            }
            if (a / seg == d / seg) d = a;
        }
        i64 w = vw[v];
        int old = part[v];
        atomicAdd((unsigned long long *)&bw[old], (unsigned long long)-w);
        atomicAdd((unsigned long long *)&bw[d], (unsigned long long)w);
        part[v] = d;
        dest[v] = old;
    }
}

// ------------------------------------------- hierarchical multisection ---
//
// GPU-HM (the paper's Algorithm 2) splits every group of one level of the
// machine at once: its graph is the input graph without the edges between
// different groups, so each group's subgraph (the paper's Algorithm 1) is
// one component range of one graph, and every kernel runs over all groups
// in one launch. sub_degree and a scan lay out the edges kept inside each
// vertex's part, sub_fill copies them; vertices keep their ids. sub_place
// carries a part through a contraction (every member of a coarse vertex
// is in one part).

// deg[v]: the neighbours of v in v's part.
extern "C" __global__ void sub_degree(const i64 *xadj, const int *adj, const int *part, i64 *deg, int n) {
    GRID_LOOP(v, n) {
        const int p = part[v];
        i64 d = 0;
        for (i64 e = xadj[v]; e < xadj[v + 1]; e++) d += part[adj[e]] == p ? 1 : 0;
        deg[v] = d;
    }
}

// The edges of v inside its part, in the order v lists them (weights in
// the parent's form).
extern "C" __global__ void sub_fill(const i64 *xadj, const int *adj, WT, const int *part, const i64 *sxadj,
                                    int *sadj, int *sew32, i64 *sew64, int n) {
    GRID_LOOP(v, n) {
        const int p = part[v];
        i64 o = sxadj[v];
        for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
            const int u = adj[e];
            if (part[u] != p) continue;
            sadj[o] = u;
            if (ew32) sew32[o] = ew32[e];
            else if (ew64) sew64[o] = ew64[e];
            o++;
        }
    }
}

// pe[orig[v]] = base + stride * part[v] (orig null: v itself).
extern "C" __global__ void sub_place(const int *orig, const int *part, int base, int stride, int *pe, int n) {
    GRID_LOOP(v, n) pe[orig ? orig[v] : (int)v] = base + stride * part[v];
}

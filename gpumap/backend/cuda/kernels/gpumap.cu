// gpumap's CUDA kernels: the data-parallel phases of integrated mapping.
// Compiled to PTX for compute_80 (make ptx); the PTX is committed beside
// this file and embedded in the Go binary, which JIT-loads it through the
// driver at run time.
//
// Conventions: 1-D grids with grid-stride loops; graphs in extended CSR
// (xadj int64[n+1], adj int32[2m], ew int64[2m], vw int64[n], src
// int32[2m]); per-vertex vectors int32. Every kernel's decisions depend
// only on values, never on the order in which threads run, so results are
// deterministic (atomics only add integers or claim hash slots whose
// contents are order-independent sums).
#include <stdint.h>

#define GRID_LOOP(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
                             i += (long long)blockDim.x * gridDim.x)

typedef long long i64;
typedef unsigned long long u64;

__device__ __forceinline__ u64 pair_noise(u64 seed, int u, int v) {
    if (u > v) { int t = u; u = v; v = t; }
    return (((u64)(unsigned)u << 32) | (u64)(unsigned)v ^ seed) * 0x9e3779b97f4a7c15ULL;
}

__device__ __forceinline__ u64 splitmix(u64 x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__device__ __forceinline__ double rating(i64 w, i64 cu, i64 cv) {
    double fw = (double)w;
    return fw * fw / ((double)(cu > 1 ? cu : 1) * (double)(cv > 1 ? cv : 1));
}

// ---------------------------------------------------------------- scan ---

// Exclusive scan of a[0..n) in blocks of 2*blockDim.x elements (blockDim.x
// must be a power of two); block totals go to sums.
extern "C" __global__ void scan_block(i64 *a, i64 n, i64 *sums) {
    extern __shared__ i64 s[];
    const int t = threadIdx.x, B = 2 * blockDim.x;
    const i64 base = (i64)blockIdx.x * B;
    s[t] = base + t < n ? a[base + t] : 0;
    s[t + blockDim.x] = base + t + blockDim.x < n ? a[base + t + blockDim.x] : 0;
    int off = 1;
    for (int d = blockDim.x; d > 0; d >>= 1) { // up-sweep
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            s[bi] += s[ai];
        }
        off <<= 1;
    }
    if (t == 0) {
        sums[blockIdx.x] = s[B - 1];
        s[B - 1] = 0;
    }
    for (int d = 1; d < B; d <<= 1) { // down-sweep
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            i64 x = s[ai];
            s[ai] = s[bi];
            s[bi] += x;
        }
    }
    __syncthreads();
    if (base + t < n) a[base + t] = s[t];
    if (base + t + blockDim.x < n) a[base + t + blockDim.x] = s[t + blockDim.x];
}

// Adds the scanned block totals back: a[i] += sums[i / per].
extern "C" __global__ void scan_add(i64 *a, i64 n, const i64 *sums, int per) {
    GRID_LOOP(i, n) a[i] += sums[i / per];
}

// ------------------------------------------------------------ helpers ---

extern "C" __global__ void edge_sources(const i64 *xadj, int *src, int n) {
    GRID_LOOP(v, n) for (i64 e = xadj[v]; e < xadj[v + 1]; e++) src[e] = (int)v;
}

extern "C" __global__ void copy_i32(int *dst, const int *src, i64 n) {
    GRID_LOOP(i, n) dst[i] = src[i];
}

// ----------------------------------------------------------- matching ---

// Every unmatched vertex names its best-rated unmatched neighbour (exp*2,
// ties by pair noise) whose pair stays within maxw.
extern "C" __global__ void match_prefer(const i64 *xadj, const int *adj, const i64 *ew, const i64 *vw,
                                        const int *match, int *pref, int n, i64 maxw, u64 seed) {
    GRID_LOOP(v, n) {
        int best = -1;
        double br = -1;
        u64 bh = 0;
        if (match[v] < 0) {
            i64 cv = vw[v];
            for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
                int u = adj[e];
                if (match[u] >= 0 || cv + vw[u] > maxw) continue;
                double r = rating(ew[e], cv, vw[u]);
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

// Two-hop matching: an unmatched vertex's matchmaker is its heaviest
// neighbour (ties: lower id).
extern "C" __global__ void hop_maker(const i64 *xadj, const int *adj, const i64 *ew, const int *match,
                                     int *maker, int n) {
    GRID_LOOP(v, n) {
        int m = -1;
        i64 bw = -1;
        if (match[v] < 0)
            for (i64 e = xadj[v]; e < xadj[v + 1]; e++)
                if (ew[e] > bw || (ew[e] == bw && adj[e] < m)) { bw = ew[e]; m = adj[e]; }
        maker[v] = m;
    }
}

// Unmatched vertices that share a matchmaker m pair up in the order of
// their ids among m's neighbours: the vertex of even rank takes the next
// one. Reads matchIn, writes matchOut (a copy), so no thread sees another's
// writes.
extern "C" __global__ void hop_pair(const i64 *xadj, const int *adj, const i64 *vw, const int *maker,
                                    const int *matchIn, int *matchOut, int n, i64 maxw) {
    GRID_LOOP(v, n) {
        int m = maker[v];
        if (matchIn[v] >= 0 || m < 0) continue;
        int rank = 0;
        for (i64 e = xadj[m]; e < xadj[m + 1]; e++) {
            int u = adj[e];
            if (u < (int)v && matchIn[u] < 0 && maker[u] == m) rank++;
        }
        if (rank & 1) continue;
        int partner = -1;
        for (i64 e = xadj[m]; e < xadj[m + 1]; e++) { // the smallest qualifying id above v
            int u = adj[e];
            if (u > (int)v && matchIn[u] < 0 && maker[u] == m && (partner < 0 || u < partner)) partner = u;
        }
        if (partner >= 0 && vw[v] + vw[partner] <= maxw) {
            matchOut[v] = partner;
            matchOut[partner] = (int)v;
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
// compare-and-swap and adds its weight there.
extern "C" __global__ void contract_insert(const int *src, const int *adj, const i64 *ew, const int *cmap,
                                           const i64 *off, int *hv, i64 *hw, i64 m2) {
    GRID_LOOP(e, m2) {
        int cu = cmap[src[e]], cv = cmap[adj[e]];
        if (cu == cv) continue;
        i64 lo = off[cu], len = off[cu + 1] - lo;
        i64 j = (i64)(((u64)(unsigned)cv * 0x9e3779b97f4a7c15ULL) % (u64)len);
        for (i64 probe = 0; probe < len; probe++) {
            int old = atomicCAS(&hv[lo + j], -1, cv);
            if (old == -1 || old == cv) {
                atomicAdd((unsigned long long *)&hw[lo + j], (unsigned long long)ew[e]);
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

extern "C" __global__ void contract_compact(const int *hv, const i64 *hw, const i64 *off, const i64 *cxadj,
                                            int *cadj, i64 *cew, int nc) {
    GRID_LOOP(c, nc) {
        i64 o = cxadj[c];
        for (i64 j = off[c]; j < off[c + 1]; j++)
            if (hv[j] >= 0) { cadj[o] = hv[j]; cew[o] = hw[j]; o++; }
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
// into v's own slot range of cb/cw and returns their count.
__device__ int gather(int v, const i64 *xadj, const int *adj, const i64 *ew, const int *part, int *cb, i64 *cw,
                      const int *dest, const int *moving, int before_gain_mode, const i64 *gain) {
    i64 base = xadj[v];
    int t = 0;
    for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
        int u = adj[e];
        int b = part[u];
        if (before_gain_mode && moving[u]) { // neighbours ranked before v count at their destination
            bool before = gain[u] > gain[v] || (gain[u] == gain[v] && u < v);
            if (before) b = dest[u];
        }
        int i = 0;
        while (i < t && cb[base + i] != b) i++;
        if (i == t) { cb[base + t] = b; cw[base + t] = 0; t++; }
        cw[base + i] += ew[e];
    }
    return t;
}

__device__ i64 cost_at(int b, i64 base, int t, const int *cb, const i64 *cw, const u64 *labels, const i64 *dist) {
    i64 c = 0;
    for (int i = 0; i < t; i++)
        if (cb[base + i] != b) c += cw[base + i] * D(labels, dist, b, cb[base + i]);
    return c;
}

// J = sum over edges of w * D, each edge once (u > v), reduced per block.
extern "C" __global__ void cost_kernel(const i64 *xadj, const int *adj, const i64 *ew, const int *part,
                                       const u64 *labels, const i64 *dist, unsigned long long *out, int n) {
    __shared__ i64 s[256];
    i64 sum = 0;
    GRID_LOOP(v, n) {
        int pv = part[v];
        for (i64 e = xadj[v]; e < xadj[v + 1]; e++) {
            int u = adj[e];
            if (u > (int)v) sum += ew[e] * D(labels, dist, pv, part[u]);
        }
    }
    s[threadIdx.x] = sum;
    __syncthreads();
    for (int d = blockDim.x / 2; d > 0; d >>= 1) {
        if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)s[0]);
}

extern "C" __global__ void block_weights(const int *part, const i64 *vw, i64 *bw, int n) {
    GRID_LOOP(v, n) atomicAdd((unsigned long long *)&bw[part[v]], (unsigned long long)vw[v]);
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

// Algorithm 4, first pass: the best adjacent block ignoring balance; moves
// of non-negative gain become candidates.
extern "C" __global__ void jet_lp(const i64 *xadj, const int *adj, const i64 *ew, const int *part,
                                  const u64 *labels, const i64 *dist, const int *locked, int *cb, i64 *cw,
                                  int *cand, int *dest, i64 *gain, int n) {
    GRID_LOOP(v, n) {
        cand[v] = 0;
        if (locked[v]) continue;
        int t = gather((int)v, xadj, adj, ew, part, cb, cw, 0, 0, 0, 0);
        i64 base = xadj[v];
        int p = part[v];
        i64 cur = cost_at(p, base, t, cb, cw, labels, dist);
        i64 bg;
        int best = best_block(p, cur, base, t, cb, cw, labels, dist, 0, &bg);
        if (best >= 0 && bg >= 0) { cand[v] = 1; dest[v] = best; gain[v] = bg; }
    }
}

// The afterburner: re-evaluate each candidate as if every candidate ranked
// before it (higher gain, then lower id) had moved; keep non-negative ones.
extern "C" __global__ void jet_after(const i64 *xadj, const int *adj, const i64 *ew, const int *part,
                                     const u64 *labels, const i64 *dist, const int *cand, const int *dest,
                                     const i64 *gain, int *cb, i64 *cw, int *moved, int n) {
    GRID_LOOP(v, n) {
        moved[v] = 0;
        if (!cand[v]) continue;
        int t = gather((int)v, xadj, adj, ew, part, cb, cw, dest, cand, 1, gain);
        i64 base = xadj[v];
        if (cost_at(part[v], base, t, cb, cw, labels, dist) - cost_at(dest[v], base, t, cb, cw, labels, dist) >= 0)
            moved[v] = 1;
    }
}

extern "C" __global__ void jet_apply(int *part, const int *dest, const int *moved, int *locked, int n) {
    GRID_LOOP(v, n) {
        locked[v] = moved[v];
        if (moved[v]) part[v] = dest[v];
    }
}

// Rebalancing candidates: vertices of overloaded blocks that are not too
// heavy pick the best adjacent block below sigma (room[b] != 0), else one
// from roomList chosen by a hash of (v, seed); the host then moves the
// cheapest prefix of every overloaded block.
extern "C" __global__ void jet_reb(const i64 *xadj, const int *adj, const i64 *ew, const i64 *vw, const int *part,
                                   const u64 *labels, const i64 *dist, const i64 *bw, i64 lmax, i64 avg,
                                   const int *room, const int *roomList, int nroom, u64 seed, int *cb, i64 *cw,
                                   int *cand, int *dest, i64 *gain, int n) {
    GRID_LOOP(v, n) {
        cand[v] = 0;
        int p = part[v];
        i64 w = vw[v];
        if (bw[p] <= lmax || w == 0 || 2 * w > 3 * (bw[p] - avg)) continue;
        int t = gather((int)v, xadj, adj, ew, part, cb, cw, 0, 0, 0, 0);
        i64 base = xadj[v];
        i64 cur = cost_at(p, base, t, cb, cw, labels, dist);
        i64 bg;
        int best = best_block(p, cur, base, t, cb, cw, labels, dist, room, &bg);
        if (best < 0) {
            u64 h = splitmix((u64)v ^ seed); // the CPU backend's choice too
            best = roomList[h % (u64)nroom];
            bg = cur - cost_at(best, base, t, cb, cw, labels, dist);
        }
        cand[v] = 1;
        dest[v] = best;
        gain[v] = bg;
    }
}

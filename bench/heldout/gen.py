import sys,random,math
def write(path,n,edges):
    adj=[dict() for _ in range(n)]
    for u,v,w in edges:
        if u==v: continue
        adj[u][v]=adj[u].get(v,0)+w; adj[v][u]=adj[v].get(u,0)+w
    m=sum(len(a) for a in adj)//2
    weighted=any(w!=1 for a in adj for w in a.values())
    with open(path,'w') as f:
        f.write(f"{n} {m}"+(" 1" if weighted else "")+"\n")
        for a in adj:
            if weighted: f.write(" ".join(f"{v+1} {w}" for v,w in sorted(a.items()))+"\n")
            else: f.write(" ".join(str(v+1) for v in sorted(a))+"\n")
def fe3d(nx,ny,nz):  # hexahedral FE nodal graph: 27-point
    idx=lambda x,y,z:(x*ny+y)*nz+z
    E=[]
    for x in range(nx):
        for y in range(ny):
            for z in range(nz):
                for dx in (0,1):
                    for dy in (-1,0,1):
                        for dz in (-1,0,1):
                            if (dx,dy,dz)<=(0,0,0): continue
                            X,Y,Z=x+dx,y+dy,z+dz
                            if 0<=X<nx and 0<=Y<ny and 0<=Z<nz: E.append((idx(x,y,z),idx(X,Y,Z),1))
    return nx*ny*nz,E
def powerlaw(n,m,seed):  # Barabasi-Albert preferential attachment
    r=random.Random(seed); E=[]; targets=list(range(m)); rep=[]
    for v in range(m,n):
        s=set()
        while len(s)<m:
            s.add(r.choice(rep) if rep and r.random()<0.9 else r.randrange(v))
        for u in s: E.append((v,u,1)); rep+= [u,v]
    # shuffle ids a bit to remove perfect order
    return n,E
def circuit(n,seed):  # cells on a 2D placement; nets of 2..k pins nearby, few big nets; clique-expanded with weight by net size
    r=random.Random(seed); side=int(math.sqrt(n)); E=[]
    pos=lambda v:(v//side,v%side)
    for v in range(n):
        k=2+int(r.paretovariate(1.8)) if r.random()<0.95 else r.randint(20,200)
        k=min(k,300)
        pins=[v]
        x,y=pos(v); rad=2 if k<10 else int(math.sqrt(k))*2
        for _ in range(k-1):
            X=min(max(x+r.randint(-rad,rad),0),side-1); Y=min(max(y+r.randint(-rad,rad),0),side-1)
            pins.append(X*side+Y)
        pins=list(set(p for p in pins if p<n))
        if len(pins)>12:  # star-expand big nets to the driver
            for p in pins[1:]: E.append((pins[0],p,1))
        else:
            for i in range(len(pins)):
                for j in range(i+1,len(pins)): E.append((pins[i],pins[j],1))
    return n,E
def finance(nblocks,seed):  # dense diagonal blocks (scenarios) + linking variables + sparse couplings
    r=random.Random(seed); E=[]; n=0; starts=[]
    for b in range(nblocks):
        sz=r.randint(20,80); starts.append((n,sz)); 
        dens=r.uniform(0.3,0.8)
        for i in range(sz):
            for j in range(i+1,sz):
                if r.random()<dens: E.append((n+i,n+j,r.randint(1,5)))
        n+=sz
    link=n; nl=max(10,nblocks//4); n+=nl
    for (s,sz) in starts:
        for l in r.sample(range(nl),3):
            for i in r.sample(range(sz),min(sz,5)): E.append((s+i,link+l,1))
    for _ in range(nblocks*2):  # couplings between neighbouring blocks (time stages)
        b=r.randrange(nblocks-1); (s1,z1),(s2,z2)=starts[b],starts[b+1]
        E.append((s1+r.randrange(z1),s2+r.randrange(z2),1))
    return n,E
def sbm(n,blocks,din,dout_pct,seed):  # stochastic block model: din/2 draws inside the block, dout_pct% of vertices one draw anywhere
    r=random.Random(seed); bs=n//blocks; E=[]
    for u in range(n):
        b=u//bs
        for _ in range(din//2): E.append((u,min(n-1,b*bs+r.randrange(bs)),1))
        if r.random()<dout_pct/100: E.append((u,r.randrange(n),1))
    return n,E
def smallworld(n,k,p_pct,seed):  # Watts-Strogatz: ring lattice of degree k, each edge rewired with p_pct%
    r=random.Random(seed); E=[]
    for u in range(n):
        for j in range(1,k//2+1):
            v=(u+j)%n
            if r.random()<p_pct/100: v=r.randrange(n)
            E.append((u,v,1))
    return n,E
kind=sys.argv[1]; out=sys.argv[2]; a=[int(x) for x in sys.argv[3:]]
if kind=='fe3d': n,E=fe3d(*a)
elif kind=='pl': n,E=powerlaw(a[0],a[1],a[2])
elif kind=='circ': n,E=circuit(a[0],a[1])
elif kind=='fin': n,E=finance(a[0],a[1])
elif kind=='sbm': n,E=sbm(*a)
elif kind=='ws': n,E=smallworld(*a)
write(out,n,E)

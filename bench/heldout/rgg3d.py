import sys,random,math
n=int(sys.argv[1]); seed=int(sys.argv[2]); out=sys.argv[3]
random.seed(seed)
r=0.55*(math.log(n)/n)**(1/3)
c=max(1,int(1/r))
pts=[(random.random(),random.random(),random.random()) for _ in range(n)]
cell=lambda p: (min(int(p[0]*c),c-1),min(int(p[1]*c),c-1),min(int(p[2]*c),c-1))
order=sorted(range(n),key=lambda i:cell(pts[i]))
pts=[pts[i] for i in order]
grid={}
for i,p in enumerate(pts): grid.setdefault(cell(p),[]).append(i)
adj=[[] for _ in range(n)]
r2=r*r
for (x,y,z),lst in grid.items():
    for dx in (-1,0,1):
        for dy in (-1,0,1):
            for dz in (-1,0,1):
                o=grid.get((x+dx,y+dy,z+dz))
                if not o: continue
                for i in lst:
                    pi=pts[i]
                    for j in o:
                        if j>i:
                            pj=pts[j]
                            if (pi[0]-pj[0])**2+(pi[1]-pj[1])**2+(pi[2]-pj[2])**2<r2:
                                adj[i].append(j);adj[j].append(i)
m=sum(len(a) for a in adj)//2
with open(out,'w') as f:
    f.write(f"{n} {m}\n")
    for a in adj: f.write(" ".join(str(j+1) for j in sorted(a))+"\n")

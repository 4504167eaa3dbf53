#!/usr/bin/env python3
# peers.py DIR: eco peers (kaffpa, global_multisection, SharedMap) on DIR/*.graph, writes DIR/peers.csv
import sys,subprocess,resource,os,glob
d=sys.argv[1]; Hs=os.environ.get('HS','4:8:1 4:8:2 4:8:4 4:8:6').split()
B=os.environ.get('GPUMAP','bin/gpumap'); K='/work/peers/KaHIP/build/'; S='/work/peers/SharedMap/build/SharedMap'
out=open(d+'/'+os.environ.get('OUTF','peers.csv'),'w'); out.write('graph,n,m,k,H,tool,cpu_s,J,maxblock,feasible_ceil\n')
def cpu(): r=resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime+r.ru_stime
for path in sorted(glob.glob(d+'/*.graph')):
    g=os.path.basename(path)[:-6]
    n,m=open(path).readline().split()[:2]
    for H in Hs:
        k=1
        for a in H.split(':'): k*=int(a)
        mp=d+'/peer.map'
        cmds={'kaffpa_eco':[K+'kaffpa',path,f'--k={k}','--preconfiguration=eco','--enable_mapping',f'--hierarchy_parameter_string={H}','--distance_parameter_string=1:10:100','--imbalance=3',f'--output_filename={mp}'],
              'gms_eco':[K+'global_multisection',path,'--preconfiguration=eco',f'--hierarchy_parameter_string={H}','--distance_parameter_string=1:10:100','--imbalance=3',f'--output_filename={mp}'],
              'sharedmap_eco':[S,'-g',path,'-m',mp,'-h',H,'-d','1:10:100','-e','0.03','-c','eco','-t','1','-s','naive']}
        for tool,c in cmds.items():
            if os.environ.get('TOOLS') and tool not in os.environ['TOOLS']: continue
            if os.path.exists(mp): os.remove(mp)
            c0=cpu(); r=subprocess.run(c,capture_output=True,text=True,timeout=600); t=cpu()-c0
            if r.returncode!=0 or not os.path.exists(mp):
                print(g,H,tool,'FAILED',r.stderr[-300:],flush=True); continue
            ev=subprocess.run([B,'eval','-g',path,'-h',H,'-d','1:10:100','-e','0.03','-m',mp],capture_output=True,text=True).stdout
            kv={}
            for tok in ev.split():
                if '=' in tok: a,b=tok.split('=',1); kv[a]=b
            row=f"{g},{n},{m},{k},{H},{tool},{t:.2f},{kv.get('J')},{kv.get('max_block')},{kv.get('feasible')}"
            out.write(row+'\n'); out.flush(); print(row,flush=True)

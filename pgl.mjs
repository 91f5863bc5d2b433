import { PGlite } from '@electric-sql/pglite';
const t0=Date.now();
const db = await PGlite.create('/tmp/pgltest');
console.log('open ms', Date.now()-t0, process.memoryUsage().rss/1e6);
await db.exec('create table if not exists r (id bigserial primary key, check_id text, data jsonb, created_at timestamptz default now())');
let t=Date.now(); const cpu=process.cpuUsage();
for (let b=0;b<20;b++){ const vals=[]; const params=[]; for(let i=0;i<500;i++){params.push('c'+i, JSON.stringify({a:i,b:'x'.repeat(200)})); vals.push(`($${params.length-1},$${params.length}::jsonb)`);} await db.query('insert into r(check_id,data) values '+vals.join(','), params);}
const c=process.cpuUsage(cpu);
console.log('10000 rows ms', Date.now()-t, 'cpu ms', (c.user+c.system)/1000, process.memoryUsage().rss/1e6);

// The store: one repository per resource over one database. Everything above this folder
// reaches data only through these repositories; no SQL lives outside src/service/store.

import { openDatabase, type Database, type Sql } from './db.js';
import { ResultFolds } from './result-folds.js';
import { AccountRepository } from './accounts.js';
import { AlertChannelRepository } from './alert-channels.js';
import { AlertRepository } from './alerts.js';
import { ArtifactRepository } from './artifacts.js';
import { CheckGroupRepository } from './check-groups.js';
import { CheckRepository } from './checks.js';
import { HeartbeatRepository } from './heartbeats.js';
import { StatusPageServiceRepository } from './status-page-services.js';
import { DashboardRepository } from './dashboards.js';
import { IncidentRepository } from './incidents.js';
import { ServiceIncidentRepository } from './service-incidents.js';
import { StatusPageRepository } from './status-pages.js';
import { JobRepository } from './jobs.js';
import { MaintenanceWindowRepository } from './maintenance-windows.js';
import { PageKeyRepository } from './page-keys.js';
import { PrivateLocationRepository } from './private-locations.js';
import { ResultRepository } from './results.js';
import { SessionRepository } from './sessions.js';
import { SnippetRepository } from './snippets.js';
import { SubscriptionRepository } from './subscriptions.js';
import { StatusRepository } from './statuses.js';
import { TriggerRepository } from './triggers.js';
import { VariableRepository } from './variables.js';

export class Repositories {
  readonly accounts: AccountRepository;
  readonly alertChannels: AlertChannelRepository;
  readonly alerts: AlertRepository;
  readonly artifacts: ArtifactRepository;
  readonly checkGroups: CheckGroupRepository;
  readonly checks: CheckRepository;
  readonly heartbeats: HeartbeatRepository;
  readonly statusPageServices: StatusPageServiceRepository;
  readonly dashboards: DashboardRepository;
  readonly incidents: IncidentRepository;
  readonly serviceIncidents: ServiceIncidentRepository;
  readonly statusPages: StatusPageRepository;
  readonly jobs: JobRepository;
  readonly maintenanceWindows: MaintenanceWindowRepository;
  readonly pageKeys: PageKeyRepository;
  readonly privateLocations: PrivateLocationRepository;
  readonly results: ResultRepository;
  readonly sessions: SessionRepository;
  readonly snippets: SnippetRepository;
  readonly statuses: StatusRepository;
  readonly subscriptions: SubscriptionRepository;
  readonly triggers: TriggerRepository;
  readonly variables: VariableRepository;

  constructor(
    protected readonly sql: Sql,
    /** The embedded store's deferred statuses and days (result-folds.ts); null on PostgreSQL. */
    protected readonly folds: ResultFolds | null = null,
  ) {
    this.accounts = new AccountRepository(sql);
    this.alertChannels = new AlertChannelRepository(sql);
    this.alerts = new AlertRepository(sql);
    this.artifacts = new ArtifactRepository(sql);
    this.checkGroups = new CheckGroupRepository(sql);
    this.checks = new CheckRepository(sql, folds);
    this.heartbeats = new HeartbeatRepository(sql);
    this.statusPageServices = new StatusPageServiceRepository(sql);
    this.dashboards = new DashboardRepository(sql);
    this.incidents = new IncidentRepository(sql);
    this.serviceIncidents = new ServiceIncidentRepository(sql);
    this.statusPages = new StatusPageRepository(sql);
    this.jobs = new JobRepository(sql);
    this.maintenanceWindows = new MaintenanceWindowRepository(sql);
    this.pageKeys = new PageKeyRepository(sql);
    this.privateLocations = new PrivateLocationRepository(sql);
    this.results = new ResultRepository(sql, folds);
    this.sessions = new SessionRepository(sql);
    this.snippets = new SnippetRepository(sql);
    this.statuses = new StatusRepository(sql, folds);
    this.subscriptions = new SubscriptionRepository(sql);
    this.triggers = new TriggerRepository(sql);
    this.variables = new VariableRepository(sql);
  }

  /** Runs fn with repositories that all write in one transaction: all of it or none of it. */
  tx<T>(fn: (store: Repositories) => Promise<T>): Promise<T> {
    return this.sql.tx((q) => fn(new Repositories(q, this.folds)));
  }
}

export class Store extends Repositories {
  readonly kind: Database['kind'];

  constructor(
    private readonly database: Database,
    folds: ResultFolds | null,
  ) {
    super(database, folds);
    this.kind = database.kind;
  }

  async close(): Promise<void> {
    await this.folds?.close();
    await this.database.close();
  }
}

export async function openStore(opts: { databaseUrl?: string; dataDir: string }): Promise<Store> {
  const db = await openDatabase(opts);
  try {
    return new Store(db, db.dialect === 'sqlite' ? await ResultFolds.open(db) : null);
  } catch (err) {
    await db.close();
    throw err;
  }
}

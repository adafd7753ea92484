/**
 * The better-sqlite3 release for a Node line. No single release runs on every line this project supports:
 *
 * - 12.x (`better-sqlite3`, a dependency) is built on `node::ObjectWrap`, whose Node 24 headers register an
 *   environment cleanup hook per object and remove it in the destructor through the isolate's current context. When
 *   V8's garbage collector frees a Statement (or Database, or iterator) outside a context (a GC run as a platform
 *   task, or at exit), `RemoveEnvironmentCleanupHook` finds no Environment and Node aborts the process
 *   ("Assertion failed: (env) != nullptr", Statement::~Statement): at any time while it runs, not only at exit, and
 *   closing every Database first does not help (the wrappers are freed all the same). Upstream did not fix 12.x
 *   (WiseLibs/better-sqlite3#1515, closed).
 * - 13.x (`better-sqlite3-v13`, an optional dependency aliasing `better-sqlite3@13`) was rewritten on Node-API
 *   (node-addon-api, WiseLibs/better-sqlite3#1498), which has no such hook, and ships prebuilt Node-API binaries
 *   (nothing is compiled at install). It needs Node 22 or later and crashes (SIGSEGV) on Node 20.
 *
 * So Node 20 gets 12.x and Node 22 and later 13.x; npm skips the optional one where its engines (Node >= 22) do not
 * match, so a Node 20 install holds 12.x only. The API our code uses is the same in both.
 */
export function sqliteDriverFor(nodeMajor: number): 'better-sqlite3' | 'better-sqlite3-v13' {
  return nodeMajor >= 22 ? 'better-sqlite3-v13' : 'better-sqlite3';
}

import Foundation
import GRDB

/// The SQLite index of complete objects (`index.sqlite`), safe to share between
/// processes (WAL, busy timeout). `path` answers from here and the file together.
public final class CacheIndex: Sendable {
    private let pool: DatabasePool
    private let path: String
    private let directory: CacheDirectory

    public init(directory: CacheDirectory) throws {
        path = directory.indexPath
        self.directory = directory
        // Two processes opening a new cache together would both set up WAL mode and both
        // run the migrations ("database is locked", "table already exists"): one at a
        // time, the second finds the work done.
        let setup = try Self.lockSetup(directory)
        pool = try withExtendedLifetime(setup) { try Self.openChecked(directory) }
    }

    /// `locks/index-setup`, held while the index is opened, migrated or rebuilt. Nil
    /// where it cannot be created (a cache on a read-only file system, or not made yet):
    /// no index can be created or migrated there either.
    private static func lockSetup(_ directory: CacheDirectory) throws -> FileLock? {
        do {
            return try FileLock.acquire(path: directory.locksDirectory + "/index-setup")
        } catch let error as SystemError where [EROFS, ENOENT, EACCES].contains(error.code) {
            return nil
        } catch let error as SystemError {
            throw CacheError.io(error)
        }
    }

    /// Opens the index, rebuilding it from `objects/` when it is damaged.
    private static func openChecked(_ directory: CacheDirectory) throws -> DatabasePool {
        let path = directory.indexPath
        // SQLite would say "attempt to write a readonly database" about a table of its
        // own; the index is read and written by every command, so say which file and why.
        // (A read-only file system is not this: it is opened read-only further down.)
        for file in [path, path + "-wal", path + "-shm"] where FileSystem.exists(file) {
            guard access(file, R_OK | W_OK) != 0, errno != EROFS else { continue }
            let reason = String(cString: strerror(errno))
            throw CacheError.index(
                path: file, reason: "this user may not read and write it (\(reason)); fix its owner or mode (ls -l, chown, chmod)")
        }
        do {
            if IndexRebuilder.isEmptied(directory) {
                return try IndexRebuilder(directory: directory).rebuild(reason: "the file is empty", open: Self.open)
            }
            if let damage = IndexRebuilder.notedDamage(directory) {
                return try IndexRebuilder(directory: directory).rebuild(reason: damage, open: Self.open)
            }
            let opened = try Self.open(path)
            guard let problem = try IndexRebuilder.problem(in: opened, directory) else { return opened }
            try? opened.close()
            return try IndexRebuilder(directory: directory).rebuild(reason: problem, open: Self.open)
        } catch let error as CacheError {
            throw error
        } catch {
            if FileSystem.isOnReadOnlyFileSystem(directory.root) {
                // A cache closed cleanly has no -wal or -shm file, and none can be made
                // here: read as it is (what lists and reads it needs nothing more).
                guard let unchanging = try? Self.openUnchanging(path) else { throw CacheError.readOnly(path: directory.root) }
                return unchanging
            }
            guard let damage = IndexRebuilder.damage(in: error) else {
                throw CacheError.index(path: path, reason: "\(error)")
            }
            do {
                return try IndexRebuilder(directory: directory).rebuild(reason: damage, open: Self.open)
            } catch {
                throw CacheError.index(path: path, reason: "\(damage), and rebuilding it failed: \(error)")
            }
        }
    }

    private static func open(_ path: String) throws -> DatabasePool {
        // SQLite would create the file with the umask's mode (often 0644), and its -wal and
        // -shm files copy that mode; the index lists URLs, which may carry tokens.
        let isNew = FileSystem.createPrivateFile(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        // A committed row must survive power loss like the renamed file it describes. Setting
        // up an index (WAL mode, the migrations) needs no flush of its own: a new one a power
        // loss damaged is rebuilt from `objects/` (empty then), a migration it took away runs
        // again, and the first commit (FULL) flushes them with it. Readers never write.
        let setUp = isNew ? "OFF" : "FULL"
        // Each connection's page cache is 256 KiB, not SQLite's 2 MiB: a pool of readers
        // filled theirs as the index grew, 3 MiB more at the end of a 100,000-line run.
        // Lookups by key read a few pages, which the kernel's page cache holds anyway.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(setUp); PRAGMA cache_size = -256")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        if !isNew { try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = OFF") } }
        try migrator.migrate(pool)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    /// The index on a read-only file system, opened as a file nothing changes
    /// (SQLite's `immutable`): no lock, -wal or -shm file is needed. Writes fail.
    private static func openUnchanging(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.readonly = true
        // A URI filename: `%`, `?`, `#` and the like in the path are escaped.
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        return try DatabasePool(path: "file:\(escaped)?immutable=1", configuration: configuration)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "objects") { t in
                t.primaryKey("key", .text)
                t.column("cache_key", .text).notNull()
                t.column("url", .text).notNull()
                t.column("mirrors", .text).notNull()
                t.column("name", .text)
                t.column("path", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("sha256", .text).notNull()
                t.column("content_type", .text)
                t.column("etag", .text)
                t.column("last_modified", .text)
                t.column("faststart", .text).notNull()
                t.column("added_at", .datetime).notNull()
                t.column("last_used_at", .datetime).notNull()
            }
            // Every name `path` accepts for an object: its URLs and its cache key.
            try db.create(table: "aliases") { t in
                t.primaryKey("alias", .text)
                t.column("key", .text).notNull().references("objects", onDelete: .cascade)
            }
        }
        // Replacing an object deletes its aliases by key (and the cascade looks them up
        // the same way): without this index every commit scanned all aliases.
        migrator.registerMigration("v2: aliases by key") { db in
            try db.create(index: "aliases_key", on: "aliases", columns: ["key"])
        }
        migrator.registerMigration("v3: the origin's file name") { db in
            try db.alter(table: "objects") { table in table.add(column: "origin_name", .text) }
        }
        return migrator
    }

    private func run<T>(_ body: () throws -> T) throws(CacheError) -> T {
        LoopThreads.preconditionOff("an index query")
        do {
            return try body()
        } catch {
            guard let damage = IndexRebuilder.damage(in: error) else { throw CacheError.index(path: path, reason: "\(error)") }
            IndexRebuilder.noteDamage(damage, directory)
            throw CacheError.index(
                path: path, reason: "\(damage) (\(error)); the next mediacache command rebuilds it from the objects: run this one again")
        }
    }

    /// One statement compiled once per connection and no transaction around it: every
    /// job asks this, on the transfer thread.
    public func object(key: CacheKey) throws -> CachedObject? {
        try run { try pool.unsafeRead { try Self.fetchObject($0, key: key.hex) } }
    }

    private static func fetchObject(_ db: Database, key: String) throws -> CachedObject? {
        try CachedObject.fetchOne(db.cachedStatement(sql: "SELECT * FROM objects WHERE key = ?"), arguments: [key])
    }

    /// Finds an object by its cache key, its URL or one of its mirrors (a URL's
    /// `#fragment` is ignored, as it was when the object was fetched), else by its
    /// `out=` name (what `ls` shows) when one object has it: a name several objects
    /// share is an `AmbiguousName` error that lists them.
    public func lookup(_ name: String) throws -> CachedObject? {
        // Names are stored without passwords.
        let name = URLCredentials.withoutPassword(name)
        if let object = try lookupExactly(name) { return object }
        if let withoutFragment = URLParts.removingFragment(name), let object = try lookupExactly(withoutFragment) {
            return object
        }
        return try lookupByOutName(name)
    }

    private func lookupByOutName(_ name: String) throws -> CachedObject? {
        let named = try run {
            try pool.read { db in
                try CachedObject.fetchAll(db, sql: "SELECT * FROM objects WHERE name = ? LIMIT 6", arguments: [name])
            }
        }
        guard named.count <= 1 else { throw AmbiguousName(name: name, urls: named.map(\.url)) }
        return named.first
    }

    private func lookupExactly(_ name: String) throws -> CachedObject? {
        try run {
            try pool.read { db in
                if let object = try Self.fetchObject(db, key: CacheKey(identity: name).hex) {
                    return object
                }
                guard let key = try String.fetchOne(db, sql: "SELECT key FROM aliases WHERE alias = ?", arguments: [name])
                else { return nil }
                return try Self.fetchObject(db, key: key)
            }
        }
    }

    /// Records a committed object and every name it answers to, replacing an older row.
    public func insert(_ object: CachedObject, aliases: [String]) throws(CacheError) {
        try insert([(object, aliases)])
    }

    /// Records several objects in one transaction (one fsync for the group).
    public func insert(_ objects: [(object: CachedObject, aliases: [String])]) throws(CacheError) {
        guard !objects.isEmpty else { return }
        try run { try pool.write { db in try Self.record(objects, in: db) } }
    }

    /// Writes the rows of `objects` and of every name each answers to, replacing older
    /// ones, in `db`'s transaction (commits and index rebuilds alike).
    static func record(_ objects: [(object: CachedObject, aliases: [String])], in db: Database) throws {
        // Prepared once per connection: a group of small files is many rows.
        let dropAliases = try db.cachedStatement(sql: "DELETE FROM aliases WHERE key = ?")
        let addObject = try db.cachedStatement(sql: CachedObject.replaceSQL)
        let addAlias = try db.cachedStatement(sql: "INSERT OR REPLACE INTO aliases (alias, key) VALUES (?, ?)")
        for (object, aliases) in objects {
            try dropAliases.execute(arguments: [object.key])
            try addObject.execute(arguments: object.rowArguments)
            for alias in Set(aliases) { try addAlias.execute(arguments: [alias, object.key]) }
        }
    }

    /// Gives a row recovered by an index rebuild (no URL yet) its names back, from a
    /// list entry that names the same object.
    public func restoreNames(of object: CachedObject, from entry: ListEntry) throws {
        guard object.url.isEmpty, object.key == CacheKey(identity: entry.identity).hex else { return }
        var named = object
        named.url = entry.url
        named.cacheKey = entry.identity
        named.mirrors = Array(entry.urls.dropFirst())
        named.name = entry.outName
        try insert(named, aliases: entry.urls + [entry.identity])
    }

    public func remove(key: CacheKey) throws {
        try run { _ = try pool.write { try CachedObject.deleteOne($0, key: key.hex) } }
    }

    public func touch(key: CacheKey, at date: Date = Date()) throws {
        try touch(keys: [key], at: date)
    }

    /// Marks objects as used now, in one transaction.
    public func touch(keys: [CacheKey], at date: Date = Date()) throws {
        guard !keys.isEmpty else { return }
        try run {
            try pool.write { db in
                for key in keys {
                    try db.execute(
                        sql: "UPDATE objects SET last_used_at = ? WHERE key = ?",
                        arguments: [IndexDate.text(date), key.hex])
                }
            }
        }
    }

    public func all() throws -> [CachedObject] {
        try run { try pool.read { try CachedObject.order(Column("added_at")).fetchAll($0) } }
    }

    /// The `limit` objects used last, the most recent first: a page of them without
    /// reading every row (a status page asks every second).
    public func recentlyUsed(limit: Int) throws -> [CachedObject] {
        try run { try pool.read { try CachedObject.order(Column("last_used_at").desc).limit(limit).fetchAll($0) } }
    }

    /// How many objects there are and their bytes, counted by SQLite.
    public func totals() throws -> (count: Int, bytes: Int64) {
        try run {
            try pool.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM objects")
                return (row?[0] ?? 0, row?[1] ?? 0)
            }
        }
    }
}

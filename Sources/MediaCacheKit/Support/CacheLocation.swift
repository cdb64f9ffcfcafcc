import Foundation

/// Where the cache is: `--cache-dir`, else `MEDIACACHE_DIR`, else
/// `$XDG_CACHE_HOME/mediacache`, else `$HOME/.cache/mediacache`. Empty variables count as
/// unset and a relative `XDG_CACHE_HOME` is ignored (XDG base directory spec); without a
/// usable HOME there is no default, rather than a cache at `/.cache/mediacache`.
public enum CacheLocation {
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// No explicit directory and HOME unset, empty or relative.
        case noHome

        public var description: String {
            switch self {
            case .noHome:
                "cannot choose a cache directory: HOME is not set (or empty, or not an absolute path); "
                    + "give --cache-dir DIR, or set MEDIACACHE_DIR or XDG_CACHE_HOME"
            }
        }
    }

    public static func resolve(
        explicit: String?, environment: [String: String],
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> Result<CacheDirectory, Problem> {
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : currentDirectory + "/" + path }
        if let explicit, !explicit.isEmpty { return .success(CacheDirectory(root: absolute(explicit))) }
        if let dir = environment["MEDIACACHE_DIR"], !dir.isEmpty { return .success(CacheDirectory(root: absolute(dir))) }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return .success(CacheDirectory(root: xdg + "/mediacache"))
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return .failure(.noHome) }
        return .success(CacheDirectory(root: home + "/.cache/mediacache"))
    }
}

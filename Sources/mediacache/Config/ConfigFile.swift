import Foundation
import MediaCacheKit

/// One setting of a config file: `key = value`, or a bare `key` for a flag.
struct ConfigSetting: Equatable, Sendable {
    var key: String
    var value: String?
    var line: Int
}

/// A problem with the config file or with `--config`/`--no-config`; the command exits 2.
struct ConfigError: Error, Equatable, CustomStringConvertible {
    let description: String

    /// The message quotes lines of the file: control characters (ESC, BEL) are shown as `?`.
    init(description: String) {
        self.description = Printable.visible(description.unicodeScalars)
    }
}

/// The config file: one `long-option = value` a line (a flag is its name alone), `#`
/// comments and blank lines. Only parsing here; which command takes a key is decided by
/// `ConfigCheck`.
struct ConfigFile: Equatable, Sendable {
    var path: String
    var settings: [ConfigSetting]

    /// A config file is a few lines; anything bigger is not one.
    static let maximumSize = 1 << 20

    /// Reads and parses `path`; a missing file is an error here (the caller decides
    /// whether a missing default file matters).
    static func read(_ path: String) throws(ConfigError) -> ConfigFile {
        if let problem = InputFileCheck.problem(path) {
            throw ConfigError(description: "cannot read config file \(path): \(problem)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigError(description: "cannot read config file \(path): permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw ConfigError(description: "cannot read config file \(path): \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else {
            throw ConfigError(description: "config file \(path) is larger than 1 MiB")
        }
        return try parse([UInt8](data), path: path)
    }

    static func parse(_ bytes: [UInt8], path: String) throws(ConfigError) -> ConfigFile {
        var settings: [ConfigSetting] = []
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        for (index, rawLine) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            func fail(_ reason: String) -> ConfigError { ConfigError(description: "\(path):\(number): \(reason)") }
            guard let text = String(validating: rawLine, as: UTF8.self) else { throw fail("not UTF-8") }
            let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            // The value is the rest of the line: a `#` inside it (a header value, say) is kept.
            let key: String
            var value: String?
            if let equals = line.firstIndex(of: "=") {
                key = line[..<equals].trimmingCharacters(in: .whitespaces)
                value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            } else {
                key = line
            }
            if key.hasPrefix("-") {
                let bare = key.drop { $0 == "-" }
                throw fail("write the long option without dashes, like '\(bare.isEmpty ? "jobs" : String(bare)) = ...'")
            }
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw fail("expected 'long-option = value' or a flag's name alone, got '\(line)'")
            }
            if value?.isEmpty == true { throw fail("'\(key) =' has no value") }
            settings.append(ConfigSetting(key: key, value: value, line: number))
        }
        return ConfigFile(path: path, settings: settings)
    }
}

/// Where the config file is: `--config FILE`, else `${XDG_CONFIG_HOME:-~/.config}/mediacache/config`.
enum ConfigLocation {
    /// The default path, or nil when neither XDG_CONFIG_HOME nor HOME is set (empty counts as unset).
    static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/mediacache/config" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/mediacache/config" }
        return nil
    }

    /// The file to use: none with `--no-config`; `--config FILE` must exist; the default
    /// file may be missing.
    static func load(explicit: String?, disabled: Bool, environment: [String: String]) throws(ConfigError)
        -> ConfigFile?
    {
        if disabled {
            if explicit != nil { throw ConfigError(description: "--config and --no-config cannot be used together") }
            return nil
        }
        if let explicit { return try ConfigFile.read(explicit) }
        guard let path = defaultPath(environment: environment), FileManager.default.fileExists(atPath: path) else {
            return nil
        }
        return try ConfigFile.read(path)
    }
}

/// A problem found in a list, located as `file:line`.
public struct ListDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public let severity: Severity
    public let file: String
    public let line: Int
    public let message: String

    public var description: String {
        severity == .error ? "\(file):\(line): \(message)" : "\(file):\(line): warning: \(message)"
    }
}

/// What parsing a list produced: the valid entries and every problem found.
public struct ParsedList: Sendable {
    public var entries: [ListEntry]
    public var diagnostics: [ListDiagnostic]

    public var errors: [ListDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [ListDiagnostic] { diagnostics.filter { $0.severity == .warning } }
}

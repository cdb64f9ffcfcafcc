/// What `TitleDownload` needs of a plan, whatever the format: the resources in
/// presentation order and a digest of each rendition's shape. Both `HLSTitlePlan` and
/// `DASHTitlePlan` conform; the download still takes an `HLSTitlePlan` (rewiring it to
/// this protocol, plus a way to name renditions and write the local manifest, is the
/// next step for DASH titles).
protocol TitlePlan: Sendable {
    /// Every resource to hold, in the order a player needs them.
    var resources: [TitleResource] { get }
    /// Rendition identity → digest of its make-up, never of its URLs.
    var shapes: [String: String] { get }
}

extension HLSTitlePlan: TitlePlan {}

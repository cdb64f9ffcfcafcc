// swift-tools-version:6.0
// libFuzzer targets for the parsers that read hostile input. Not part of the main
// package: CI never builds them. Build and run them with `Fuzz/run` (see docs/internals.md).
import PackageDescription

let kit: [Target.Dependency] = ["FuzzDriver", .product(name: "MediaCacheKit", package: "mediacache")]

let package = Package(
    name: "mediacache-fuzz",
    dependencies: [.package(name: "mediacache", path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzListParser", dependencies: kit),
        .executableTarget(name: "FuzzMP4", dependencies: kit),
        .executableTarget(name: "FuzzBundle", dependencies: kit),
        .executableTarget(name: "FuzzM3U8", dependencies: kit),
        .executableTarget(name: "FuzzMPD", dependencies: kit),
    ]
)

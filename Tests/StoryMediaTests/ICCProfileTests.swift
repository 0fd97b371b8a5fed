import CHEIF
import CLittleCMS
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// Issue 30, item 4: a photo that embeds a Display P3 (phones) or Adobe RGB (cameras) ICC
/// profile is shown converted to sRGB. The profiles are built here with Little CMS from their
/// published primaries (no profile file is downloaded), embedded by exiftool, and each patch's
/// colour is checked against lcms2's `transicc` (relative colorimetric, to its built-in sRGB,
/// clipped to 0-255).
/// Tolerance: 3 levels for PNG (lossless), 5 for JPEG (quality 100, 4:4:4, flat patches) and
/// for HEIC (lossless 4:4:4 from the PNG, with libheif's RGB to YCbCr rounding); the
/// colours unconverted are 8 or more levels off on at least one patch, which is checked too.
final class ICCProfileTests: XCTestCase {
    let folder = ScratchFolder()
    /// Colours inside both gamuts, so that none is clipped and the conversion shows.
    static let patches: [[Int]] = [[200, 120, 40], [60, 160, 90], [90, 80, 200], [230, 200, 60]]

    func testDisplayP3AndAdobeRGBPhotosAreShownInSRGB() throws {
        for (profile, name) in [(try ICCProfiles.displayP3(in: folder), "Display P3"), (try ICCProfiles.adobeRGB(in: folder), "Adobe RGB (compatible)")] {
            let expected = try transicc(profile)
            for (format, tolerance) in [("png", 3), ("jpg", 5), ("heic", 5)] {
                let photo = try patchPhoto(format: format, profile: profile)
                let loaded = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), width: 128, height: 32, limits: DecodeLimits())
                var widest = 0
                for (index, colour) in expected.enumerated() {
                    let pixel = loaded[16 + index * 32, 16]
                    let got = [Int(pixel.red), Int(pixel.green), Int(pixel.blue)]
                    XCTAssertLessThanOrEqual(zip(got, colour).map { abs($0 - $1) }.max() ?? 0, tolerance,
                                             "\(name) \(format) patch \(index): \(got), transicc's \(colour)")
                    widest = max(widest, zip(Self.patches[index], colour).map { abs($0 - $1) }.max() ?? 0)
                }
                XCTAssertGreaterThanOrEqual(widest, 8, "\(name): the conversion is visible")
                let probe = try MediaProbe.run(photo)
                XCTAssertEqual(probe.iccProfile, name)
                XCTAssertTrue(probe.json.contains("\"icc_profile\": \"\(name)\""), probe.json)
            }
        }
    }

    /// A HEIF that names Display P3 in its `nclx` box and has no ICC profile (as cameras and
    /// Android phones write them) is converted as the Display P3 profile converts it; probe
    /// names its primaries and no ICC profile. Before, its colours were shown unconverted.
    func testAHEIFWhoseNCLXSaysDisplayP3IsShownInSRGB() throws {
        let expected = try transicc(try ICCProfiles.displayP3(in: folder))
        XCTAssertEqual(expected.count, Self.patches.count)
        let (width, height) = (32 * Self.patches.count, 32)
        var pixels = [UInt8]()
        for _ in 0..<height {
            for patch in Self.patches { for _ in 0..<32 { pixels += patch.map(UInt8.init) } }
        }
        let photo = folder.file("nclx-p3.heic")
        try HEIFWriter.write(to: photo, width: width, height: height, colourspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGB,
                             planes: [HEIFWriter.Plane(channel: heif_channel_interleaved, width: width, height: height, depth: 8,
                                                       bytesPerRow: width * 3, bytes: pixels)],
                             primaries: 12, transfer: 13, matrix: 6, fullRange: true, lossless: true)
        let loaded = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), width: width, height: height, limits: DecodeLimits())
        for (index, colour) in expected.enumerated() {
            let pixel = loaded[16 + index * 32, 16]
            let got = [Int(pixel.red), Int(pixel.green), Int(pixel.blue)]
            XCTAssertLessThanOrEqual(zip(got, colour).map { abs($0 - $1) }.max() ?? 0, 5, "patch \(index): \(got), transicc's \(colour)")
        }
        let probe = try MediaProbe.run(photo)
        XCTAssertNil(probe.iccProfile)
        XCTAssertEqual(probe.colour, VideoColour(transfer: "iec61966-2-1", primaries: "smpte432", isHDR: false))
    }

    /// A photo without a profile, or with an sRGB one, keeps its bytes; probe says none.
    func testSRGBAndUntaggedPhotosAreLeftAsTheyAre() throws {
        let plain = try patchPhoto(format: "png", profile: nil)
        let loaded = try PictureLoader.load(MediaSource(uri: plain, relativeTo: "/"), width: 128, height: 32, limits: DecodeLimits())
        for (index, colour) in Self.patches.enumerated() {
            let pixel = loaded[16 + index * 32, 16]
            XCTAssertEqual([Int(pixel.red), Int(pixel.green), Int(pixel.blue)], colour)
        }
        XCTAssertNil(try MediaProbe.run(plain).iccProfile)
        XCTAssertTrue(try MediaProbe.run(plain).json.contains("\"icc_profile\": null"))
        let sRGB = try ICCProfiles.sRGB(in: folder)
        let tagged = try patchPhoto(format: "png", profile: sRGB)
        let same = try PictureLoader.load(MediaSource(uri: tagged, relativeTo: "/"), width: 128, height: 32, limits: DecodeLimits())
        XCTAssertEqual(same.pixels, loaded.pixels)
    }

    // MARK: - Photos and references

    /// Four 32x32 patches of `patches`, with `profile` embedded by exiftool; a HEIC is made
    /// losslessly (4:4:4) by heif-enc from such a PNG, which keeps its profile. PNGs are RGB:
    /// heif-enc 1.15 misreads a palette PNG.
    private func patchPhoto(format: String, profile: String?) throws -> String {
        if format == "heic" {
            let png = try patchPhoto(format: "png", profile: profile)
            let path = folder.file("patches-\(UUID().uuidString.prefix(8)).heic")
            try ExternalProgram.run(TestPrograms.tool("heif-enc"), ["-L", "-p", "chroma=444", png, "-o", path])
            return path
        }
        let path = folder.file("patches-\(UUID().uuidString.prefix(8)).\(format)")
        let tiles = Self.patches.flatMap { ["-size", "32x32", "xc:rgb(\($0[0]),\($0[1]),\($0[2]))"] }
        try ExternalProgram.run(TestPrograms.tool("convert"), tiles + ["+append", "-quality", "100", "-sampling-factor", "1x1", (format == "png" ? "PNG24:" : "") + path])
        if let profile {
            try ExternalProgram.run(TestPrograms.tool("exiftool"), ["-q", "-overwrite_original", "-ICC_Profile<=\(profile)", path])
        }
        return path
    }

    /// transicc's sRGB for each patch, from `profile`, clipped to 0-255 as an 8-bit picture is
    /// (transicc's own values run past sRGB's gamut).
    private func transicc(_ profile: String) throws -> [[Int]] {
        let input = Self.patches.map { $0.map(String.init).joined(separator: " ") }.joined(separator: "\n") + "\n"
        let values = folder.file("patches.txt")
        try input.write(toFile: values, atomically: true, encoding: .utf8)
        let output = try ExternalProgram.run("/bin/sh", ["-c", "\"$0\" -n -t1 -i \"$1\" -o '*sRGB' < \"$2\"",
                                                    try TestPrograms.tool("transicc"), profile, values])
        let rows = String(decoding: output, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: " ").compactMap { Double($0) }.map { min(255, max(0, Int($0.rounded()))) }
        }.filter { $0.count == 3 }
        guard rows.count == Self.patches.count else { throw ExternalProgram.Failed(message: "transicc said \(rows)") }
        return rows
    }
}

/// ICC profiles built with Little CMS from their published primaries and curves.
enum ICCProfiles {
    /// Display P3: DCI-P3 primaries, D65, the sRGB curve.
    static func displayP3(in folder: ScratchFolder) throws -> String {
        try write(folder.file("DisplayP3.icc"), name: "Display P3", primaries: [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
                  curve: cmsBuildParametricToneCurve(nil, 4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]))
    }

    /// Adobe RGB (1998): its primaries, D65, gamma 563/256.
    static func adobeRGB(in folder: ScratchFolder) throws -> String {
        try write(folder.file("AdobeRGB.icc"), name: "Adobe RGB (compatible)", primaries: [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)],
                  curve: cmsBuildGamma(nil, 563.0 / 256))
    }

    /// sRGB, as Little CMS builds it.
    static func sRGB(in folder: ScratchFolder) throws -> String {
        let path = folder.file("sRGB.icc")
        let profile = try XCTUnwrap(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(profile) }
        guard cmsSaveProfileToFile(profile, path) != 0 else { throw ExternalProgram.Failed(message: "cannot save \(path)") }
        return path
    }

    private static func write(_ path: String, name: String, primaries: [(Double, Double)], curve: OpaquePointer?) throws -> String {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: primaries[0].0, y: primaries[0].1, Y: 1),
                                     Green: cmsCIExyY(x: primaries[1].0, y: primaries[1].1, Y: 1),
                                     Blue: cmsCIExyY(x: primaries[2].0, y: primaries[2].1, Y: 1))
        let curve = try XCTUnwrap(curve)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = try XCTUnwrap(cmsCreateRGBProfile(&white, &triple, &curves))
        defer { cmsCloseProfile(profile) }
        let description = cmsMLUalloc(nil, 1)
        defer { cmsMLUfree(description) }
        cmsMLUsetASCII(description, "en", "US", name)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(description))
        guard cmsSaveProfileToFile(profile, path) != 0 else { throw ExternalProgram.Failed(message: "cannot save \(path)") }
        return path
    }
}

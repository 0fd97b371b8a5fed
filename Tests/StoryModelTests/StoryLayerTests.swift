import Compositor
import StoryModel
import XCTest

/// `layers` as the storyboard writes them, their easings, and where keyframes put them.
final class StoryLayerTests: XCTestCase {
    func board(_ layers: String, onStory: Bool = false) throws -> Storyboard {
        let json = onStory ? #"{"stories": [{"layers": \#(layers), "items": [{"uri": "a.mp4"}]}]}"#
            : #"{"stories": [{"items": [{"uri": "a.mp4", "layers": \#(layers)}]}]}"#
        return try Storyboard.parse(json, folder: "/b")
    }

    func ease(_ easing: LayerEasing, _ progress: Double) -> Double { easing(progress) }

    func testEasingsAtTheirMidpointsAndEnds() {
        XCTAssertEqual(ease(.linear, 0.5), 0.5)
        XCTAssertEqual(ease(.easeInOut, 0.5), 0.5, accuracy: 1e-6, "symmetric")
        // CSS's ease-in (0.42, 0, 1, 1) and ease-out (0, 0, 0.58, 1) halfway through the time.
        XCTAssertEqual(ease(.easeIn, 0.5), 0.3153, accuracy: 0.001)
        XCTAssertEqual(ease(.easeOut, 0.5), 0.6847, accuracy: 0.001)
        XCTAssertEqual(ease(.easeInOut, 0.2), 0.0805, accuracy: 0.002)
        for easing in LayerEasing.allCases {
            XCTAssertEqual(easing(0), 0, accuracy: 1e-9, easing.rawValue)
            XCTAssertEqual(easing(1), 1, accuracy: 1e-9, easing.rawValue)
        }
        let spring = stride(from: 0.0, through: 1, by: 0.01).map { ease(.spring, $0) }
        XCTAssertGreaterThan(spring.max()!, 1.05, "a spring overshoots")
        XCTAssertEqual(ease(.spring, 0.95), 1, accuracy: 0.01, "and has settled by the end")
    }

    func testKeyframesMoveEachValueOnItsOwnTrack() throws {
        let layers = try board("""
        [{"text": "Hi", "x": 0.1, "opacity": 0.5, "keyframes": [
          {"t": 1, "x": 0.2, "easing": "ease-in-out"}, {"t": 2, "rotation": 90}, {"t": 3, "x": 0.8}]}]
        """).stories[0].items[0].layers
        let layer = try XCTUnwrap(layers.first)
        XCTAssertEqual(layer.pose(at: 0).x, 0.2, "before its first keyframe a value holds it")
        XCTAssertEqual(layer.pose(at: 2).x, 0.5, accuracy: 1e-9, "halfway in time, halfway by ease-in-out")
        XCTAssertEqual(layer.pose(at: 1.4).x, 0.2 + 0.6 * ease(.easeInOut, 0.2), accuracy: 1e-9)
        XCTAssertEqual(layer.pose(at: 9).x, 0.8, "after its last it holds that")
        XCTAssertEqual(layer.pose(at: 1).rotation, 90, "one keyframe: that value throughout")
        XCTAssertEqual(layer.pose(at: 2.5).opacity, 0.5, "a value no keyframe names stays the layer's")
        XCTAssertEqual(layer.pose(at: 2.5).y, 0.5, "default centre")
    }

    func testTextAndStickerLayersOnItemsAndStories() throws {
        let story = try board("""
        [{"text": "Sale", "font": "fonts/Brand.ttf", "size": 80, "bold": true, "color": "#ff0", "stroke": {"width": 3},
          "background": "#000000AA", "align": "left", "width": 0.6, "from": 1, "to": 4},
         {"image": "star.png", "width": 0.25, "x": 0.7, "y": 0.2, "rotation": -15, "scale": 1.5}]
        """, onStory: true).stories[0]
        XCTAssertTrue(story.items[0].layers.isEmpty)
        guard case .text(let style) = story.layers[0].content else { return XCTFail("a text layer") }
        XCTAssertEqual(style.font, "/b/fonts/Brand.ttf")
        XCTAssertTrue(style.fontIsFile)
        XCTAssertEqual(style.color, RGBAColor(red: 255, green: 255, blue: 0))
        XCTAssertEqual(style.strokeWidth, 3)
        XCTAssertEqual(style.strokeColor, .black)
        XCTAssertEqual(style.alignment, .left)
        XCTAssertEqual(style.wrapWidth, 0.6)
        XCTAssertTrue(story.layers[0].shows(at: 1) && !story.layers[0].shows(at: 4) && !story.layers[0].shows(at: 0.5))
        guard case .sticker(let source, let width) = story.layers[1].content else { return XCTFail("a sticker") }
        XCTAssertEqual(source.location, "/b/star.png")
        XCTAssertEqual(width, 0.25)
        XCTAssertEqual(story.layers[1].pose, LayerPose(x: 0.7, y: 0.2, rotation: -15, scale: 1.5))
        guard case .text(let family) = try board(#"[{"text": "x", "font": "Noto Sans"}]"#).stories[0].items[0].layers[0].content else {
            return XCTFail("a text layer")
        }
        XCTAssertEqual(family.font, "Noto Sans")
        XCTAssertFalse(family.fontIsFile, "a family name fontconfig looks up")
    }

    func testBadLayersNameTheirPaths() {
        let cases = [
            (#"[{"x": 0.5}]"#, #"items[0].layers[0].text: a layer needs "text" or "image""#),
            (#"[{"text": "a", "image": "b.png"}]"#, #"items[0].layers[0].image: a layer has "text" or "image", not both"#),
            (#"[{"text": "a", "keyframes": [{"t": 2}, {"t": 1}]}]"#, "items[0].layers[0].keyframes[1].t: 1 must come after the keyframe before (2)"),
            (#"[{"text": "a", "keyframes": [{"x": 1}]}]"#, "items[0].layers[0].keyframes[0].t: missing"),
            (#"[{"text": "a", "keyframes": [{"t": 0, "easing": "bounce"}]}]"#, #"items[0].layers[0].keyframes[0].easing: "bounce" is not one of "linear""#),
            (#"[{"text": "a", "color": "red"}]"#, #"items[0].layers[0].color: expected a colour"#),
            (#"[{"text": "a", "from": 3, "to": 2}]"#, #"items[0].layers[0].to: must come after "from""#),
            (#"[{"text": "a", "opacty": 1}]"#, #"items[0].layers[0].opacty: unknown key; did you mean "opacity"?"#),
        ]
        for (layers, said) in cases {
            XCTAssertThrowsError(try board(layers), layers) { error in
                XCTAssertTrue("\(error)".contains("stories[0]." + said), "\(error)")
            }
        }
    }

    func testASpringNeverTakesOpacityPastOneOrScaleBelowZero() throws {
        let layer = try XCTUnwrap(try board("""
        [{"text": "a", "keyframes": [{"t": 0, "opacity": 0, "scale": 1, "easing": "spring"}, {"t": 1, "opacity": 1, "scale": 0}]}]
        """).stories[0].items[0].layers.first)
        for t in stride(from: 0.0, through: 1, by: 0.01) {
            let pose = layer.pose(at: t)
            XCTAssertTrue((0...1).contains(pose.opacity), "opacity \(pose.opacity) at \(t)")
            XCTAssertGreaterThanOrEqual(pose.scale, 0, "scale at \(t)")
        }
    }
}

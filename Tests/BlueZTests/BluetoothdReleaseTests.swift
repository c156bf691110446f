@testable import BlueZ
@testable import BlueZTransport
import DBus
import Testing

/// Which bluetoothd answers, from its adapters' Modalias (bluetoothd's Device ID: vendor 1D6B, product 0246, version
/// major << 8 | minor, `src/main.c`), and what an old one lacks.
@Suite struct BluetoothdReleaseTests {
    @Test(arguments: [("usb:v1D6Bp0246d0537", "5.55"), ("usb:v1D6Bp0246d0542", "5.66"), ("usb:v1d6bp0246d0529", "5.41"),
                      ("usb:v1D6Bp0246d0552", "5.82")])
    func theModaliasNamesTheRelease(modalias: String, release: String) {
        #expect(BluetoothdRelease(modalias: modalias)?.description == release)
    }

    @Test(arguments: ["usb:v1234p5678d0100", "bluetooth:v1D6Bp0246d0542", "usb:v1D6Bp0246d05", ""])
    func anotherDeviceIDNamesNoRelease(modalias: String) {
        // main.conf's DeviceID may name the host's own vendor and product: then the version is theirs, not bluetoothd's.
        #expect(BluetoothdRelease(modalias: modalias) == nil)
    }

    @Test func theAdapterReadsItsModalias() throws {
        let adapter = BlueZAdapter(path: try #require(BlueZPath("/org/bluez/hci0")),
                                   properties: ["Modalias": .string("usb:v1D6Bp0246d0537"), "Powered": .boolean(true)])
        #expect(adapter.bluetoothdRelease == BluetoothdRelease(major: 5, minor: 55))
    }

    @Test func aBluetoothdBefore542WithNoServicesSaysItsGATTClientIsExperimental() throws {
        let reason = try #require(BlueZTransport.missingGATTClient(serviceCount: 0, release: BluetoothdRelease(major: 5, minor: 41)))
        #expect(reason.contains("bluetoothd 5.41"), "\(reason)")
        #expect(reason.contains("--experimental"), "\(reason)")
        #expect(reason.contains("5.42 or later"), "\(reason)")
    }

    @Test func otherwiseNoServicesIsTheDevicesOwnAffair() {
        #expect(BlueZTransport.missingGATTClient(serviceCount: 0, release: BluetoothdRelease(major: 5, minor: 42)) == nil)
        #expect(BlueZTransport.missingGATTClient(serviceCount: 0, release: nil) == nil)
        #expect(BlueZTransport.missingGATTClient(serviceCount: 2, release: BluetoothdRelease(major: 5, minor: 41)) == nil)
    }
}

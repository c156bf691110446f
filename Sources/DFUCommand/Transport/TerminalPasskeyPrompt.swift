import DFUCore
import Synchronization
import SystemSupport

/// Asks on the terminal for the passkey a device shows while pairing (when `--passkey` was not given):
/// a line on standard error, the digits read from standard input on a thread of its own (the read
/// blocks; it must not take a thread of the shared pool). One question at a time: devices paired at
/// once wait for each other's answer.
enum TerminalPasskeyPrompt {
    /// The prompt, when standard input and standard error are terminals; nil otherwise (a device that
    /// wants a passkey then cannot pair, and the error says to give it with `--passkey`).
    static func make(writeError: @escaping @Sendable (String) -> Void) -> DFUPasskeyPrompt? {
        guard FileDescriptor.standardInput.isTerminal, FileDescriptor.standardError.isTerminal else { return nil }
        let turn = TurnLock()
        return DFUPasskeyPrompt { address in
            await turn.withTurn {
                writeError("dfu: \(address) asks for the passkey it shows; type its 6 digits and press Enter: ")
                guard let line = await readLine() else { return nil }
                let digits = line.trimmingCharacters()
                guard let passkey = UInt32(digits), passkey <= 999_999 else {
                    writeError("dfu: '\(TerminalText.escaped(digits))' is not a passkey (0 to 999999)\n")
                    return nil
                }
                return passkey
            }
        }
    }

    /// A line from standard input, nil at its end, or when the task is cancelled first (the thread then
    /// stays in its read until a line comes or the process ends).
    private static func readLine() async -> String? {
        let waiter = Mutex<CheckedContinuation<String?, Never>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                waiter.withLock { $0 = continuation }
                do {
                    try DetachedThread.start {
                        let line = Swift.readLine(strippingNewline: true)
                        waiter.withLock { $0.take() }?.resume(returning: line)
                    }
                } catch {
                    waiter.withLock { $0.take() }?.resume(returning: nil)
                }
            }
        } onCancel: {
            waiter.withLock { $0.take() }?.resume(returning: nil)
        }
    }
}

/// Runs one body at a time, in the order they asked.
private final class TurnLock: Sendable {
    private let state = Mutex<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func withTurn<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if now { continuation.resume() }
        }
        let result = await body()
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
        return result
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

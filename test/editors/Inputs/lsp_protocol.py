"""Sends flowc lsp what a broken client might: a URI with a bad %-escape, a body that is
not JSON, a message that is not an object, then (as the last message, since the stream
cannot be read past it) a header named by the command line. Prints each reply's gist."""
import json
import subprocess
import sys

flowc, last_header = sys.argv[1], sys.argv[2]


def frame(body):
    data = body.encode() if isinstance(body, str) else body
    return b'Content-Length: %d\r\n\r\n' % len(data) + data


def message(**fields):
    return frame(json.dumps(dict(jsonrpc='2.0', **fields)))


stream = b''.join([
    message(id=1, method='initialize', params={}),
    message(method='textDocument/didOpen',
            params={'textDocument': {'uri': 'file:///tmp/no%zzsuch%2.flow', 'text': 'let x: u64 = ;\n'}}),
    frame('{not json'),
    frame('[1, 2]'),
    message(id=2, method='textDocument/hover',
            params={'textDocument': {'uri': 'file:///tmp/no%zzsuch%2.flow'}, 'position': {'line': 0, 'character': 4}}),
    last_header.encode().replace(b'\\r\\n', b'\r\n'),
])
done = subprocess.run([flowc, 'lsp'], input=stream, capture_output=True)
out = done.stdout
while out:
    head, _, rest = out.partition(b'\r\n\r\n')
    length = int(head.split(b':')[1])
    reply = json.loads(rest[:length])
    out = rest[length:]
    if 'error' in reply:
        print('ERROR', reply['error']['code'], reply['error']['message'])
    elif reply.get('method') == 'textDocument/publishDiagnostics':
        p = reply['params']
        print('DIAGNOSTICS', p['uri'], len(p['diagnostics']), p['diagnostics'][0]['message'] if p['diagnostics'] else '')
    elif 'result' in reply:
        print('RESULT', reply['id'], 'null' if reply['result'] is None else 'value')
print('STDERR', done.stderr.decode().strip())
print('EXIT', done.returncode)

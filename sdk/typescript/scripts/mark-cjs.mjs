// dist/cjs holds CommonJS while the package is "type": "module": a package.json there tells Node so.
import fs from 'node:fs';

fs.writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');

// Compiles contracts/**/*.sol with the pinned solc-js through its standard-JSON
// interface and writes one artifact per deployable contract:
//
//   node compile.js ROOT OUTDIR ABIDIR
//
// OUTDIR/<Name>.json holds the ABI, the creation and runtime bytecode, the
// compiler version and settings, and the sha256 of every source file the
// contract was built from (and of this toolchain's files), so that a Go test can
// tell, without npm, that a committed artifact no longer matches its sources.
// ABIDIR/<Name>.abi and <Name>.bin are abigen's inputs. Run it through gen.sh.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const solc = require('solc');

// The EVM version is pinned: solc's default is its newest fork, which chains
// adopt months later. Cancun (MCOPY, transient storage) runs on every chain
// upgraded since March 2024; Prague adds no opcode solc would use.
const EVM_VERSION = 'cancun';
const OPTIMIZER = { enabled: true, runs: 200 };
// The files of this toolchain whose change must regenerate the artifacts.
const TOOLCHAIN = ['scripts/contracts/compile.js', 'scripts/contracts/gen.sh', 'scripts/contracts/package-lock.json'];

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function solFiles(root, dir) {
  const out = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...solFiles(root, rel));
    else if (e.name.endsWith('.sol')) out.push(rel);
  }
  return out.sort();
}

function main() {
  const [root, outDir, abiDir] = process.argv.slice(2);
  if (!root || !outDir || !abiDir) throw new Error('usage: node compile.js ROOT OUTDIR ABIDIR');

  const sources = {};
  for (const f of solFiles(root, 'contracts')) sources[f] = { content: fs.readFileSync(path.join(root, f), 'utf8') };
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: OPTIMIZER,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'metadata'] } },
    },
  };
  // Every import must be one of the sources above: nothing is read from elsewhere.
  const findImports = (p) => ({ error: `import ${p} is not under contracts/` });
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));

  // Warnings fail the build too: the contracts are short enough to keep clean.
  const problems = (output.errors || []).filter((e) => e.severity !== 'info');
  for (const e of problems) console.error(e.formattedMessage);
  if (problems.length > 0) throw new Error(`solc reported ${problems.length} error(s) or warning(s)`);

  const toolchain = {};
  for (const f of TOOLCHAIN) toolchain[f] = sha256(path.join(root, f));

  const names = [];
  for (const [sourceName, contracts] of Object.entries(output.contracts)) {
    for (const [name, c] of Object.entries(contracts)) {
      if (!c.evm.bytecode.object) continue; // abstract contracts and interfaces
      const meta = JSON.parse(c.metadata);
      const used = {};
      for (const f of Object.keys(meta.sources).sort()) used[f] = sha256(path.join(root, f));
      const artifact = {
        contractName: name,
        sourceName,
        compiler: `solc-js ${solc.version()}`,
        evmVersion: EVM_VERSION,
        optimizer: OPTIMIZER,
        sources: used,
        toolchain,
        abi: c.abi,
        bytecode: '0x' + c.evm.bytecode.object,
        deployedBytecode: '0x' + c.evm.deployedBytecode.object,
      };
      fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(artifact, null, 2) + '\n');
      fs.writeFileSync(path.join(abiDir, `${name}.abi`), JSON.stringify(c.abi));
      fs.writeFileSync(path.join(abiDir, `${name}.bin`), c.evm.bytecode.object);
      names.push(name);
    }
  }
  names.sort();
  console.log(names.join('\n'));
}

try {
  main();
} catch (e) {
  console.error(`compile.js: ${e.message}`);
  process.exit(1);
}

/**
 * Imports a package the product can run without (transformers.js is an optional peer dependency: only a Hugging Face
 * model needs it), turning "not installed" into a message that says what to install and why.
 */

/** True when `error` says that `specifier` itself could not be found (not one of its own dependencies). */
export function isMissingPackage(error: unknown, specifier: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const named = error.message.includes(`'${specifier}'`) || error.message.includes(`"${specifier}"`);
  return named && (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /Cannot find (package|module)/.test(error.message));
}

/** `import(specifier)`, failing with `need` and the install command when the package is not installed. */
export async function importOptional<T>(specifier: string, need: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, specifier)) throw error;
    throw new Error(`${need} needs the optional package ${specifier}, which is not installed: run \`npm install ${specifier}\` next to agent-memory.`, {
      cause: error,
    });
  }
}

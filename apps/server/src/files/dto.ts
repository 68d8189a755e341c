import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { FILE_LIMITS } from '@svc/common';

const PATH_DOC = { description: 'path on the device: absolute, or relative to the runtime\'s home (empty: the home)', example: '/etc/hostname' };
/** A client-chosen id that groups a sync's calls into one `device.files_synced` audit entry. */
const SYNC_ID = /^[A-Za-z0-9_-]{8,64}$/;
const SYNC_DOC = { description: 'id (8-64 of A-Z a-z 0-9 _ -) grouping the calls of one sync: audited once, as device.files_synced', example: 'b9a4c1e0d2f34a5b' };
const WITHIN_DOC = { description: 'refuse unless the path stays inside this directory on the device, symbolic links included (sync)' };

/** The path's text is checked again (NUL, length) by checkPathText before it reaches a device. */
export class FilePathQuery {
  @ApiProperty(PATH_DOC) @IsString() @MaxLength(FILE_LIMITS.maxPathBytes) path: string;
}

export class DownloadQuery extends FilePathQuery {
  @ApiPropertyOptional(WITHIN_DOC) @IsOptional() @IsString() @MaxLength(FILE_LIMITS.maxPathBytes) within?: string;
  @ApiPropertyOptional(SYNC_DOC) @IsOptional() @Matches(SYNC_ID) sync?: string;
}

export class UploadQuery extends DownloadQuery {
  @ApiPropertyOptional({ description: 'when the path is an existing directory, write into it under this name' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;
}

export class ManifestInput {
  @ApiProperty(PATH_DOC) @IsString() @MaxLength(FILE_LIMITS.maxPathBytes) path: string;

  @ApiPropertyOptional({ type: [String], description: 'gitignore-like patterns to skip (docs/protocol.md, "Files")', example: ['*.log', 'node_modules/'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FILE_LIMITS.maxExcludePatterns)
  @IsString({ each: true })
  @MaxLength(FILE_LIMITS.maxPatternLength, { each: true })
  exclude?: string[];

  @ApiPropertyOptional({ default: false, description: 'hash every file (sha256); otherwise size and mtime decide' })
  @IsOptional()
  @IsBoolean()
  hash?: boolean;
}

export class DeleteInput {
  @ApiProperty({ ...PATH_DOC, description: 'the sync root on the device; nothing outside it is deleted' })
  @IsString()
  @MaxLength(FILE_LIMITS.maxPathBytes)
  root: string;

  @ApiProperty({ type: [String], description: `paths relative to the root ('/'-separated, no '..'), at most ${FILE_LIMITS.maxDeletePaths}` })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(FILE_LIMITS.maxDeletePaths)
  @IsString({ each: true })
  @MaxLength(FILE_LIMITS.maxPathBytes, { each: true })
  paths: string[];

  @ApiProperty(SYNC_DOC) @Matches(SYNC_ID) sync: string;
}

export class SyncEndInput {
  @ApiProperty(SYNC_DOC) @Matches(SYNC_ID) sync: string;
}
